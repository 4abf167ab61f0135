"""Build of the native field kernel; pyproject.toml holds everything else.

The C extensions zkbluff._fr_native (src/zkbluff/_native/fr.c), zkbluff._msm_native
(msm.c, the MSMs) and zkbluff._points_native (points.c, the contribution's and setup's
point kernel) need only a C compiler and the Python headers. msm.c and points.c share the
BN254 Fp arithmetic of src/zkbluff/_native/bn254_fp.h and the G1 Jacobian doubling and
mixed addition of bn254_jac.h; all three share the MULX/ADX Montgomery product of
mont_adx.h (each lists the headers it includes in ``depends``;
MANIFEST.in ships every header in the sdist). zkbluff.field falls back to its pure-Python
kernels when the extension is absent, and ZKBLUFF_FIELD=native makes its absence an error.

The registry an install carries: build_py copies circuits/manifest.json (and any pinned
keys under circuits/keys/) into the package as zkbluff/registry/, where
``zkbluff.statements.keys.registry_dir()`` finds them without a checkout. The .r1cs files
(tens of MB) stay out: no installed command reads them (keys are made from the code, and
``zkbluff circuits check`` on an install compares the manifest only, and says so).
"""
import shutil
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_py import build_py


class build_py_with_registry(build_py):
    def run(self) -> None:
        super().run()
        source = Path(__file__).resolve().parent / "circuits"
        target = Path(self.build_lib) / "zkbluff" / "registry"
        if not (source / "manifest.json").exists():
            return  # building from an sdist without circuits/: nothing to carry
        target.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source / "manifest.json", target / "manifest.json")
        if (source / "keys").is_dir():
            shutil.copytree(source / "keys", target / "keys", dirs_exist_ok=True)


setup(
    cmdclass={"build_py": build_py_with_registry},
    ext_modules=[
        Extension(
            "zkbluff._fr_native",
            sources=["src/zkbluff/_native/fr.c"],
            depends=["src/zkbluff/_native/mont_adx.h"],
            extra_compile_args=["-O3", "-std=c11", "-Wall"],
            # no compiler here: install anyway; zkbluff.field then runs its Python kernels
            # (and tests/field/test_field_native.py fails under CI=true, where it must be built)
            optional=True,
        ),
        Extension(
            "zkbluff._msm_native",
            sources=["src/zkbluff/_native/msm.c"],
            depends=["src/zkbluff/_native/bn254_fp.h", "src/zkbluff/_native/mont_adx.h",
                     "src/zkbluff/_native/bn254_jac.h", "src/zkbluff/_native/msm_field.h",
                     "src/zkbluff/_native/msm_group.h"],
            extra_compile_args=["-O3", "-std=c11", "-Wall"],
            # absent: the mcl backend's MSMs use MCL's own mulVec (and warn)
            optional=True,
        ),
        # many G1 points times one scalar (a ceremony contribution); without it the
        # backend multiplies point by point through MCL (zkbluff.curve.mcl_backend)
        Extension(
            "zkbluff._points_native",
            sources=["src/zkbluff/_native/points.c"],
            depends=["src/zkbluff/_native/bn254_fp.h", "src/zkbluff/_native/mont_adx.h",
                     "src/zkbluff/_native/bn254_jac.h"],
            extra_compile_args=["-O3", "-std=c11", "-Wall"],
            optional=True,
        ),
    ],
)
