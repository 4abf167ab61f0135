"""Build of the native field kernel; pyproject.toml holds everything else.

The C extension zkbluff._fr_native (src/zkbluff/_native/fr.c) needs only a C compiler
and the Python headers. zkbluff.field falls back to its pure-Python kernels when the
extension is absent, and ZKBLUFF_FIELD=native makes its absence an error.
"""
from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "zkbluff._fr_native",
            sources=["src/zkbluff/_native/fr.c"],
            extra_compile_args=["-O3", "-std=c11", "-Wall"],
            # no compiler here: install anyway; zkbluff.field then runs its Python kernels
            # (and tests/test_field_native.py fails under CI=true, where it must be built)
            optional=True,
        )
    ],
)
