"""zkbluff benchmarks: ratios against snarkjs on the same R1CS and witness, same machine.

Run with `make bench` (installs snarkjs from npm and, where it installs, groth16py).
Prints markdown tables and writes them to benchmarks/results.md. Never a timed test.

  python benchmarks/run.py [--quick] [--sections lean,curve,ntt,builder,groth16,statements,bots]

The chart (benchmarks/prove_times.png) needs the ``bench`` extra: ``pip install -e '.[bench]'``.
"""
from __future__ import annotations

import argparse
import ctypes
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from zkbluff.circuit import build  # noqa: E402
from zkbluff.circuit.formats import write_wtns  # noqa: E402
from zkbluff.curve import G1_GENERATOR, G2_GENERATOR, available_backends, get_backend  # noqa: E402
from zkbluff.field import EvaluationDomain, available_kernels, get_kernel, r, root_of_unity  # noqa: E402

OUT: list[str] = []
#: prove wall time (s) against constraints per prover, for the chart
CHART: dict[str, list[tuple[int, float]]] = {}


def emit(line: str = "") -> None:
    print(line, flush=True)
    OUT.append(line)


def timeit(fn, repeat: int = 3, warmup: int = 0) -> float:
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def cputime(fn, repeat: int = 3) -> float:
    """Median CPU seconds of this process for ``fn`` (steadier than the wall clock on a
    shared machine; meaningful for single-threaded pieces)."""
    times = []
    for _ in range(repeat):
        t = time.process_time()
        fn()
        times.append(time.process_time() - t)
    return statistics.median(times)


def child_cputime(cmd: list[str], env: dict | None = None) -> float:
    """CPU seconds (user + system, all threads) of one run of a child process."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, check=True, capture_output=True, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def ms(x: float) -> str:
    return f"{x * 1000:.2f} ms" if x < 1 else f"{x:.2f} s"


# ------------------------------------------------------------------ curve
def bench_curve(quick: bool) -> None:
    emit("## Curve backends (medians)")
    emit()
    emit("| operation | " + " | ".join(available_backends()) + " |")
    emit("|---|" + "---|" * len(available_backends()))
    rng = random.Random(1)
    rows: dict[str, dict[str, str]] = {}
    for name in available_backends():
        be = get_backend(name)
        slow = name == "pyecc"
        k = rng.randrange(r)
        rows.setdefault("G1 scalar mul", {})[name] = ms(timeit(lambda: be.g1_mul(G1_GENERATOR, k)))
        rows.setdefault("G2 scalar mul", {})[name] = ms(timeit(lambda: be.g2_mul(G2_GENERATOR, k)))
        P, Q = be.g1_mul(G1_GENERATOR, 5), be.g2_mul(G2_GENERATOR, 7)
        rows.setdefault("pairing (1-pair product)", {})[name] = ms(timeit(lambda: be.pairing_product_is_one([(P, Q)]),
                                                                          repeat=1 if slow else 5))
        pairs = [(P, Q)] * 4
        rows.setdefault("4-pair product check", {})[name] = ms(timeit(lambda: be.pairing_product_is_one(pairs),
                                                                      repeat=1 if slow else 5))
        sizes = [10] if slow else ([10, 12, 14] if quick else [10, 12, 14, 16])
        base = be.g1_mul_many(G1_GENERATOR, [rng.randrange(r) for _ in range(1 << max(sizes))]) if not slow else \
            get_backend("mcl").g1_mul_many(G1_GENERATOR, [rng.randrange(r) for _ in range(1 << 10)]) \
            if "mcl" in available_backends() else [be.g1_mul(G1_GENERATOR, i + 1) for i in range(1 << 10)]
        for lg in [10, 12, 14, 16]:
            label = f"G1 MSM 2^{lg}"
            if lg not in sizes:
                rows.setdefault(label, {})[name] = "—"
                continue
            pts = base[: 1 << lg]
            sc = [rng.randrange(r) for _ in pts]
            prep = be.g1_prepare(pts)
            rows.setdefault(label, {})[name] = ms(timeit(lambda: be.g1_msm(prep, sc), repeat=1 if slow else 3))
        for lg in [10, 14]:
            label = f"G2 MSM 2^{lg}"
            if slow and lg > 10 or quick and lg > 12:
                rows.setdefault(label, {})[name] = "—"
                continue
            if slow:
                rows.setdefault(label, {})[name] = "—"
                continue
            qs = be.g2_mul_many(G2_GENERATOR, [rng.randrange(r) for _ in range(1 << lg)])
            sc = [rng.randrange(r) for _ in qs]
            prep = be.g2_prepare(qs)
            rows.setdefault(label, {})[name] = ms(timeit(lambda: be.g2_msm(prep, sc)))
    for op, vals in rows.items():
        emit(f"| {op} | " + " | ".join(vals.get(n, "—") for n in available_backends()) + " |")
    emit()
    if "mcl" in available_backends():
        bench_mcl_overhead()


def bench_mcl_overhead() -> None:
    """At 2^14: MCL's own mulVec on ready-made arrays, the native G1 MSM (zkbluff._msm_native)
    on the same arrays, and our API (scalars converted, result normalised out; its G1 MSMs
    run the native one when it is built)."""
    from zkbluff.curve import mcl_backend as mb

    be = get_backend("mcl")
    n = 1 << 14
    rng = random.Random(2)
    pts = be.g1_mul_many(G1_GENERATOR, [rng.randrange(r) for _ in range(n)])
    sc = [rng.randrange(r) for _ in range(n)]
    prep = be.g1_prepare(pts)
    frs = (ctypes.c_uint64 * (4 * n)).from_buffer_copy(mb._fr_blob(sc))
    out = mb.G1Struct()

    def raw():
        mb._lib.mclBnG1_mulVec(out, prep.data, frs, ctypes.c_size_t(n))

    t_raw = timeit(raw, repeat=5, warmup=1)
    t_api = timeit(lambda: be.g1_msm(prep, sc), repeat=5, warmup=1)
    t_api_cold = timeit(lambda: be.g1_msm(pts, sc), repeat=3)
    native = mb._native_msm()
    if native is not None:
        t_native = timeit(lambda: native.g1_msm(prep.data, frs, n), repeat=5, warmup=1)
        own = (f"the native G1 MSM (Pippenger, batched affine additions, GLV) on the same arrays: {ms(t_native)} "
               f"(**{t_native / t_raw:.2f}×**); ")
    else:
        own = "the native G1 MSM is not built here; "
    emit(f"MCL's own mulVec at 2^14: {ms(t_raw)}; {own}through zkbluff's API with prepared points: {ms(t_api)} "
         f"({t_api / t_raw:.2f}× MCL's mulVec, scalars converted to Montgomery form included); "
         f"from affine tuples each time: {ms(t_api_cold)} ({t_api_cold / t_raw:.2f}×).")
    emit()


# ------------------------------------------------------------------ ntt
def bench_ntt(quick: bool) -> None:
    kernels = available_kernels()
    emit("## NTT: the field kernels (native: C on packed Montgomery limbs; python: numpy object arrays)")
    emit()
    emit("Each operation on kernel vectors (no int conversion in the time); the h step is the "
         "prover's: 3 inverse NTTs, 3 coset NTTs and the pointwise products.")
    emit()
    ops = ["NTT", "inverse NTT", "coset NTT", "h step"]
    emit("| size | " + " | ".join(f"{op} {k}" for op in ops for k in kernels)
         + (" | native speed-up (NTT / h step) |" if len(kernels) > 1 else " |"))
    emit("|---|" + "---|" * (len(ops) * len(kernels) + (len(kernels) > 1)))
    rng = random.Random(3)
    for lg in ([12, 14] if quick else [12, 13, 14, 15, 16]):
        d = EvaluationDomain(lg)
        xs = [rng.randrange(r) for _ in range(d.size)]
        shift = root_of_unity(lg + 1)
        cells: dict[tuple[str, str], float] = {}
        for name in kernels:
            k = get_kernel(name)
            v = k.from_ints(xs, d.size)
            reps = 1 if name == "python" and lg >= 15 else 3
            cells["NTT", name] = timeit(lambda: d.ntt_vec(k, v), repeat=reps)
            cells["inverse NTT", name] = timeit(lambda: d.intt_vec(k, v), repeat=reps)
            cells["coset NTT", name] = timeit(lambda: d.coset_ntt_vec(k, v), repeat=reps)
            cells["h step", name] = timeit(lambda: k.h_step(v, v, lg, d.omega, shift), repeat=reps)
        row = f"| 2^{lg} | " + " | ".join(ms(cells[op, k]) for op in ops for k in kernels)
        if len(kernels) > 1:
            row += (f" | **{cells['NTT', 'python'] / cells['NTT', 'native']:.0f}×** / "
                    f"**{cells['h step', 'python'] / cells['h step', 'native']:.0f}×**")
        emit(row + " |")
    emit()


# ------------------------------------------------------------------ builder
def chain_statement(n: int):
    def synth(cs, inputs):
        out = cs.public("out", inputs and inputs["out"])
        x = cs.private_unchecked("x", inputs and 3)
        for i in range(n - 1):
            x = cs.mul(x, x + i, f"m{i}")
        cs.enforce_equal(x, out, "out")
    return synth


def chain_output(n: int) -> int:
    x = 3
    for i in range(n - 1):
        x = x * (x + i) % r
    return x


def bench_builder() -> None:
    emit("## Circuit builder")
    emit()
    n = 1 << 16
    out = chain_output(n)
    system, witness = build(chain_statement(n), {"out": out})
    t_build = cputime(lambda: build(chain_statement(n), {"out": out}), repeat=5)
    w_build = timeit(lambda: build(chain_statement(n), {"out": out}), repeat=5)
    t_shape = cputime(lambda: build(chain_statement(n)), repeat=5)
    w_shape = timeit(lambda: build(chain_statement(n)), repeat=5)
    from zkbluff.circuit import check

    t_check = cputime(lambda: check(system, witness), repeat=3)
    emit("Medians of 5, CPU time of this process (the wall clock in brackets: a shared machine).")
    emit()
    emit(f"2^16 constraints (a chain of `cs.mul(x, x + i)`): system and witness in {ms(t_build)} "
         f"({ms(w_build)}), shape only in {ms(t_shape)} ({ms(w_shape)}), `check` in {ms(t_check)}.")
    emit()


# ------------------------------------------------------------------ groth16
SNARKJS_INPROCESS = r"""
const snarkjs = require(process.argv[2]);
const [zkey, wtns, reps] = [process.argv[3], process.argv[4], +process.argv[5]];
(async () => {
  const vk = await snarkjs.zKey.exportVerificationKey(zkey);
  let res;
  const prove = [], verify = [];
  for (let i = 0; i < reps + 1; i++) {
    let t = performance.now();
    res = await snarkjs.groth16.prove(zkey, wtns);
    if (i > 0) prove.push(performance.now() - t);   // the first run warms up (curve build)
    t = performance.now();
    const ok = await snarkjs.groth16.verify(vk, res.publicSignals, res.proof);
    if (!ok) throw new Error("snarkjs rejected its own proof");
    if (i > 0) verify.push(performance.now() - t);
  }
  const med = (a) => a.sort((x, y) => x - y)[Math.floor(a.length / 2)];
  console.log(JSON.stringify({prove: med(prove) / 1000, verify: med(verify) / 1000}));
  process.exit(0);
})();
"""


def node_modules() -> Path | None:
    nm = Path(os.environ.get("ZKBLUFF_NODE_MODULES", ROOT / "node_modules"))
    return nm if (nm / "snarkjs").is_dir() and shutil.which("node") else None


def with_field(name: str, fn):
    old = os.environ.get("ZKBLUFF_FIELD")
    os.environ["ZKBLUFF_FIELD"] = name
    try:
        return fn()
    finally:
        if old is None:
            del os.environ["ZKBLUFF_FIELD"]
        else:
            os.environ["ZKBLUFF_FIELD"] = old


def bench_breakdown(pk, witness) -> list[str]:
    """Each piece of one prove alone, one after another on one thread, in CPU time (not
    the overlapped wall clock): where the time goes."""
    from zkbluff.groth16.prove import _prepared
    from zkbluff.groth16.qap import h_vector

    be = get_backend("mcl")
    k = get_kernel()
    prep = _prepared(pk, be)
    n_pub = pk.n_public
    rows: list[tuple[str, float]] = []
    def range_check():
        for v in witness:
            if not isinstance(v, int) or not 0 <= v < r:
                raise ValueError(v)

    rows.append(("witness range check (Python loop)", cputime(range_check, repeat=3)))
    rows.append(("witness to kernel vector", cputime(lambda: k.from_ints(witness, pk.n_wires), repeat=3)))
    w = k.from_ints(witness, pk.n_wires)

    def matrices():
        a, b = prep["matrix"].evaluate(k, w)
        (c,) = prep["c_matrix"].evaluate(k, w)
        assert k.equal(k.mul(a, b), c)

    rows.append(("A w, B w, C w and the check (A w)(B w) = C w", cputime(matrices, repeat=3)))
    a, b = prep["matrix"].evaluate(k, w)
    rows.append(("h step (6 NTTs)", cputime(lambda: h_vector(k, prep["domain"], a, b), repeat=3)))
    h = h_vector(k, prep["domain"], a, b)
    wb = k.mont_bytes(w) + k.mont_bytes(k.from_ints([1, 5], 2))
    # C's scalars: r w_i for B's G1 points, r for beta, the private w_i for L's; then h for H's
    bl = k.mont_bytes(k.scale_powers(w, 5, 1)) + k.mont_bytes(k.from_ints([5], 1)) + k.mont_bytes(w)[32 * (n_pub + 1):]
    cb = bl + k.mont_bytes(h)
    rows.append(("scalars: the kernel's packed bytes (MCL's layout; no conversion)",
                 cputime(lambda: [k.mont_bytes(w) for _ in range(4)], repeat=3)))
    rows.append(("G1 MSM A", cputime(lambda: be.g1_msm_packed(prep["a"], wb), repeat=3)))
    rows.append(("G2 MSM B", cputime(lambda: be.g2_msm_packed(prep["b2"], wb), repeat=3)))
    start = 0
    names = ["B's G1 points and L", "H"] if len(prep["c"]) == 2 else ["B's G1 points, L and H"]
    for i, part in enumerate(prep["c"]):
        sl = cb[32 * start: 32 * (start + part.n)]
        start += part.n
        rows.append((f"G1 MSM C, part {i + 1} of {len(prep['c'])}: {names[i]} ({part.n} points)",
                     cputime(lambda: be.g1_msm_packed(part, sl), repeat=3)))
    total = sum(t for _, t in rows)
    return [f"| {name} | {ms(t)} | {100 * t / total:.0f}% |" for name, t in rows] + [f"| **sum** | {ms(total)} | |"]


def bench_contribution(pk, n_constraints: int) -> str:
    """One phase-2 ceremony contribution to ``pk`` (every L and H point times the
    contributor's secret; what each seat of a per-match ceremony does): wall and CPU."""
    from zkbluff.ceremony.phase2 import Zkey, zkey_contribute

    zk = Zkey(pk, bytes(64), ())
    t, c = time.perf_counter(), time.process_time()
    zkey_contribute(zk, "bench", backend=get_backend("mcl"))
    wall, cpu = time.perf_counter() - t, time.process_time() - c
    return (f"A phase-2 ceremony contribution at {n_constraints} constraints "
            f"({len(pk.l_query) + len(pk.h_query)} G1 points times the contributor's secret, a thread per core): "
            f"wall {ms(wall)}, CPU of all threads {ms(cpu)} (target ≤ 3 s).")


def bench_groth16(quick: bool) -> None:
    from zkbluff.groth16 import prove, setup, verify
    from zkbluff.groth16.zkey import write_zkey

    emit("## Groth16 against snarkjs (same .r1cs, .zkey and .wtns; medians)")
    emit()
    nm = node_modules()
    try:
        import groth16py  # type: ignore
    except ImportError:
        groth16py = None
    kernel = get_kernel().name
    from zkbluff.curve import mcl_backend as mb

    where = (f"G1 MSMs of {mb.NATIVE_MSM_MIN}+ and G2 MSMs of {mb.NATIVE_G2_MSM_MIN}+ terms run the native "
             "Pippenger (zkbluff._msm_native), smaller ones MCL's mulVec"
             if mb._native_msm() is not None else "the native MSM is not built here: all run MCL's mulVec")
    emit(f"zkbluff on the mcl backend with the {kernel} field kernel unless a column says otherwise; its "
         "MSMs take the kernel's packed Montgomery scalars and leave out zero scalars and points at infinity; "
         f"{where}.")
    emit()
    emit(f"| constraints | zkbluff setup | zkbluff prove ({kernel} field) | where the prove time goes (wall) | "
         "zkbluff prove (python field) | zkbluff verify | "
         "snarkjs prove in-process | snarkjs prove CLI | snarkjs verify in-process | snarkjs verify CLI | "
         "groth16py prove | **prove ratio zkbluff/snarkjs** | **prove ratio zkbluff/groth16py** |")
    emit("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    sizes = [10, 12] if quick else [10, 12, 14, 16]
    pyecc_line = None
    breakdown = None
    cpu_rows: list[str] = []
    setup_cpu: list[str] = []
    mcl = get_backend("mcl")
    for lg in sizes:
        n = (1 << lg) - 2  # with the public input and snarkjs's rows the domain is exactly 2^lg
        system, witness = build(chain_statement(n), {"out": chain_output(n)})
        t, c = time.perf_counter(), time.process_time()
        pk = setup(system, backend=mcl)
        t_setup = time.perf_counter() - t
        setup_cpu.append(f"{system.n_constraints}: {ms(time.process_time() - c)}")
        prove(pk, witness, backend=mcl)  # warm the prepared points
        phases: dict = {}
        t_prove = timeit(lambda: prove(pk, witness, backend=mcl, timings=phases), repeat=3)
        proof = prove(pk, witness, backend=mcl)
        t_verify = timeit(lambda: verify(pk.vk, [witness[1]], proof, backend=mcl), repeat=9)
        where = (f"check {ms(phases['check'])}, poly {ms(phases['polynomials'])}, "
                 f"MSM after {ms(phases['msm'])}")
        t_pyfield = with_field("python", lambda: timeit(lambda: prove(pk, witness, backend=mcl),
                                                        repeat=1 if lg >= 14 else 3))
        cpu = {"zk": cputime(lambda: prove(pk, witness, backend=mcl))}
        if lg == max(sizes):
            breakdown = (system.n_constraints, t_prove, bench_breakdown(pk, witness))
            contribution = bench_contribution(pk, system.n_constraints)
        cells = ["—"] * 5
        ratio = ratio_g16 = "—"
        with tempfile.TemporaryDirectory() as d:
            zkey, wtns = Path(d) / "c.zkey", Path(d) / "c.wtns"
            write_zkey(zkey, pk)
            write_wtns(wtns, witness)
            if nm:
                script = Path(d) / "bench.cjs"
                script.write_text(SNARKJS_INPROCESS)
                res = json.loads(subprocess.run(["node", str(script), str(nm / "snarkjs"), str(zkey), str(wtns), "3"],
                                                capture_output=True, text=True, check=True).stdout)
                cli = ["node", str(nm / "snarkjs" / "build" / "cli.cjs")]
                t_cli_prove = timeit(lambda: subprocess.run(cli + ["groth16", "prove", str(zkey), str(wtns),
                                                                   f"{d}/p.json", f"{d}/pub.json"], check=True,
                                                                  capture_output=True), repeat=3)
                subprocess.run(cli + ["zkey", "export", "verificationkey", str(zkey), f"{d}/vk.json"], check=True,
                               capture_output=True)
                t_cli_verify = timeit(lambda: subprocess.run(cli + ["groth16", "verify", f"{d}/vk.json",
                                                                    f"{d}/pub.json", f"{d}/p.json"], check=True,
                                                                   capture_output=True), repeat=3)
                cells[0:4] = [ms(res["prove"]), ms(t_cli_prove), ms(res["verify"]), ms(t_cli_verify)]
                cpu["snarkjs"] = statistics.median(child_cputime(cli + ["groth16", "prove", str(zkey), str(wtns),
                                                                      f"{d}/p.json", f"{d}/pub.json"])
                                                   for _ in range(3))
                ratio = f"**{t_prove / res['prove']:.2f}×**"
                CHART.setdefault("snarkjs (in-process)", []).append((system.n_constraints, res["prove"]))
            if groth16py is not None:
                gpk = groth16py.import_zkey(str(zkey))
                gpk = gpk[0] if isinstance(gpk, tuple) else gpk
                t_g16 = timeit(lambda: groth16py.prove_wtns(gpk, str(wtns)), repeat=3, warmup=1)
                cells[4] = ms(t_g16)
                ratio_g16 = f"**{t_prove / t_g16:.2f}×**"
                CHART.setdefault("groth16py", []).append((system.n_constraints, t_g16))
                cpu["groth16py"] = cputime(lambda: groth16py.prove_wtns(gpk, str(wtns)))
        CHART.setdefault("zkbluff", []).append((system.n_constraints, t_prove))
        cpu_cells = [ms(cpu[x]) if x in cpu else "—" for x in ("zk", "groth16py", "snarkjs")]
        ratio_g = f"**{cpu['zk'] / cpu['groth16py']:.2f}×**" if "groth16py" in cpu else "—"
        ratio_s = f"**{cpu['zk'] / cpu['snarkjs']:.2f}×**" if "snarkjs" in cpu else "—"
        cpu_rows.append(f"| {system.n_constraints} | " + " | ".join(cpu_cells) + f" | {ratio_g} | {ratio_s} |")
        emit(f"| {system.n_constraints} | {ms(t_setup)} | {ms(t_prove)} | {where} | {ms(t_pyfield)} | "
             f"{ms(t_verify)} | " + " | ".join(cells) + f" | {ratio} | {ratio_g16} |")
        if lg == 10:
            pyecc = get_backend("pyecc")
            small_sys, small_w = build(chain_statement(254), {"out": chain_output(254)})
            t = time.perf_counter()
            spk = setup(small_sys, backend=pyecc)
            ts = time.perf_counter() - t
            t = time.perf_counter()
            sp = prove(spk, small_w, backend=pyecc)
            tp = time.perf_counter() - t
            t = time.perf_counter()
            verify(spk.vk, [small_w[1]], sp, backend=pyecc)
            tv = time.perf_counter() - t
            pyecc_line = (f"pyecc backend (reference) at {small_sys.n_constraints} constraints: setup {ms(ts)}, "
                          f"prove {ms(tp)}, verify {ms(tv)}.")
    emit()
    if pyecc_line:
        emit(pyecc_line)
        emit()
    emit("### CPU seconds per prove (all threads; steadier than the wall clock on a shared machine)")
    emit()
    emit("On an idle machine with 2 cores the prover's wall clock approaches half its CPU time (it keeps "
         "both cores busy). snarkjs CLI includes starting node and "
         "reading the key.")
    emit()
    emit("| constraints | zkbluff prove | groth16py prove | snarkjs prove CLI | "
         "zkbluff/groth16py | zkbluff/snarkjs CLI |")
    emit("|---|---|---|---|---|---|")
    for line in cpu_rows:
        emit(line)
    emit()
    emit("zkbluff setup, CPU of all threads (the C fixed-base kernel, a thread per core), by constraints: "
         + ", ".join(setup_cpu) + ".")
    emit()
    emit(contribution)
    emit()
    assert breakdown is not None
    n_c, t_wall, lines = breakdown
    emit(f"### Where the prove time goes at {n_c} constraints")
    emit()
    emit(f"CPU time of each piece alone, one after another on one thread ({kernel} field kernel, mcl "
         f"backend; CPU time is steadier than the wall clock on a shared machine). The prover overlaps "
         f"them on two threads: its wall clock in the table above is {ms(t_wall)}.")
    emit()
    emit("| piece | time | share |")
    emit("|---|---|---|")
    for line in lines:
        emit(line)
    emit()
    write_chart(ROOT / "benchmarks" / "prove_times.png")
    if not nm:
        emit("(snarkjs not found: run `make bench`, which installs it.)")
    if groth16py is None:
        emit("(groth16py not installed here: `make bench` tries to install it.)")
    emit()


def write_chart(path: Path) -> None:
    """Prove time against constraints (log-log) per prover, and zkbluff's ratio to each peer
    with the issue's targets; needs the ``bench`` extra (matplotlib)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        emit("(matplotlib not installed: `pip install -e '.[bench]'` draws the chart.)")
        return
    if "zkbluff" not in CHART:
        return
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.5))
    for name, pts in CHART.items():
        xs, ys = zip(*sorted(pts))
        left.loglog(xs, ys, marker="o", label=name)
    left.set_xlabel("constraints")
    left.set_ylabel("prove time (s, wall, median)")
    left.set_title("Groth16 prove, same R1CS and witness")
    left.grid(True, which="both", alpha=0.3)
    left.legend()
    ours = dict(CHART["zkbluff"])
    for peer, target in (("groth16py", 0.5), ("snarkjs (in-process)", 0.25)):
        pts = sorted((n, ours[n] / t) for n, t in CHART.get(peer, []) if n in ours)
        if pts:
            xs, ys = zip(*pts)
            line, = right.semilogx(xs, ys, marker="o", label=f"zkbluff / {peer}")
            right.axhline(target, color=line.get_color(), linestyle="--", alpha=0.6, label=f"target {target}x")
    right.set_xlabel("constraints")
    right.set_ylabel("prove time ratio (lower is better)")
    right.set_title("zkbluff against its peers")
    right.grid(True, which="both", alpha=0.3)
    right.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    emit(f"![prove time against constraints, and the ratios]({path.name})")
    emit()


# ------------------------------------------------------------------ lean path and start-up
def bench_lean(repeat: int = 15) -> None:
    """Play-time proofs through the game path (the party's Prover: witness, proof and
    envelope, the pinned keys) and the commands' start-up, against issue 19's targets."""
    from zkbluff.games.engine.parties import Prover
    from zkbluff.statements import get_statement
    from zkbluff.statements import keys as keys_mod

    sys.path.insert(0, str(ROOT / "tests"))
    from statement_inputs import valid_inputs  # type: ignore

    emit("## Play-time proofs (the game path: witness, proof, envelope; pinned keys; mcl)")
    emit()
    emit("Wall and CPU medians of Prover.prove (all threads' CPU; on a shared machine the CPU time is "
         "the steadier number, and on an idle one with 2 cores the wall clock is below it: the MSMs run "
         "on both cores). \"witness\": the lean witness pass alone; \"full builder\": the same witness "
         "by a whole run of the constraint-system builder (what each proof paid before). Key load: the "
         "proving key from the local cache, in a process that has not loaded it yet.")
    emit()
    emit("| statement | constraints | prove, wall | prove, CPU | target | witness | full builder | key load |")
    emit("|---|---|---|---|---|---|---|---|")
    targets = {"card.play.v1@deck=52,max_play=4": "≤ 25 ms", "card.claim.v1@deck=52": "≤ 12 ms"}
    prover = Prover()
    for key in ("card.play.v1@deck=52,max_play=4", "card.claim.v1@deck=52", "card.play.v1@deck=20,max_play=3",
                "card.claim.v1@deck=20", "card.deal.v2@deck=52,hands=7-7,board=0,entropies=2",
                "card.deal.v2@deck=20,hands=5-5,board=0,entropies=3"):
        stmt = get_statement(key)
        inputs = valid_inputs(stmt, random.Random(key))
        keys_mod.load_keys(key)  # a first load ever expands the pinned key into the cache
        keys_mod._LOADED.clear()
        t_load = cputime(lambda: keys_mod.load_keys(key), repeat=1)
        prover.prove(key, inputs, "bench", 1, "00" * 32, 0)  # warm: the prepared points
        walls, cpus = [], []
        for _ in range(repeat):
            t, c = time.perf_counter(), time.process_time()
            prover.prove(key, inputs, "bench", 1, "00" * 32, 0)
            walls.append(time.perf_counter() - t)
            cpus.append(time.process_time() - c)
        t_wit = cputime(lambda: stmt.witness(inputs), repeat=5)
        t_full = cputime(lambda: stmt.build_full(inputs), repeat=3)
        emit(f"| {key} | {stmt.system().n_constraints} | {ms(statistics.median(walls))} | "
             f"{ms(statistics.median(cpus))} | {targets.get(key, '(reported)')} | {ms(t_wit)} | {ms(t_full)} | "
             f"{ms(t_load)} |")
    emit()
    bench_startup()


def bench_startup(repeat: int = 7) -> None:
    """``zkbluff transcript verify`` of a demo transcript and ``zkbluff verify`` of a claim
    proof, each a fresh process: wall and CPU (user + system) medians."""
    from zkbluff.games.engine.parties import Prover
    from zkbluff.groth16 import Proof

    emit("## Start-up: the commands a verifier runs (fresh processes)")
    emit()
    cmd = [sys.executable, "-m", "zkbluff"]
    with tempfile.TemporaryDirectory() as d:
        transcript = Path(d) / "demo" / "match.jsonl"
        subprocess.run(cmd + ["demo", "--out", str(transcript)], check=True, capture_output=True)
        inputs = {"play": (1 << 3) | (1 << 16), "play_salt": 12345, "rank_mask": sum(1 << (3 + 13 * s) for s in range(4)),
                  "verdict": 1}
        env = Prover().prove("card.claim.v1@deck=52", inputs, "bench", 1, "00" * 32, 0)
        Proof.from_json(env["proof"])
        (Path(d) / "proof.json").write_text(json.dumps(env["proof"]))
        (Path(d) / "public.json").write_text(json.dumps(env["public"]))
        runs = [("`python -c pass` (the interpreter alone)", [sys.executable, "-c", "pass"], "—"),
                (f"`zkbluff transcript verify` (the demo's {sum(1 for _ in transcript.open())} lines)",
                 cmd + ["transcript", "verify", str(transcript)], "≤ 120 ms"),
                ("`zkbluff verify card.claim.v1@deck=52 public.json proof.json`",
                 cmd + ["verify", "card.claim.v1@deck=52", str(Path(d) / "public.json"), str(Path(d) / "proof.json")],
                 "≤ 150 ms")]
        # the bytecode is written once and used (a user's environment); an environment that
        # forbids writing it would have every run compile every module
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        emit("Main thread: the CPU time of the process's main thread alone (the same command run "
             "through `runpy`, reporting its `time.thread_time()` at exit): the critical path on an "
             "idle 2-core machine, where MCL's initialisation runs beside it in its own thread.")
        emit()
        emit("| command | wall | CPU (user + system) | main thread CPU | target |")
        emit("|---|---|---|---|---|")
        for label, argv, target in runs:
            subprocess.run(argv, check=True, capture_output=True, env=env)  # warm the file cache and bytecode
            walls, cpus, mains = [], [], []
            for _ in range(repeat):
                t = time.perf_counter()
                cpus.append(child_cputime(argv, env))
                walls.append(time.perf_counter() - t)
                if argv[1:3] == ["-m", "zkbluff"]:
                    mains.append(main_thread_cputime(argv[3:], env))
            main = ms(statistics.median(mains)) if mains else "—"
            emit(f"| {label} | {ms(statistics.median(walls))} | {ms(statistics.median(cpus))} | {main} | {target} |")
    emit()


_MAIN_THREAD_PROBE = """
import atexit, runpy, sys, time
atexit.register(lambda: sys.stderr.write(f"\\nmain-thread-cpu {time.thread_time()}\\n"))
sys.argv = ["zkbluff"] + sys.argv[1:]
runpy.run_module("zkbluff", run_name="__main__", alter_sys=True)
"""


def main_thread_cputime(args: list[str], env: dict) -> float:
    """CPU seconds of the main thread of one ``python -m zkbluff ARGS`` run."""
    out = subprocess.run([sys.executable, "-c", _MAIN_THREAD_PROBE, *args], check=True, capture_output=True,
                         text=True, env=env)
    return float(out.stderr.strip().splitlines()[-1].split()[1])


# ------------------------------------------------------------------ statements
def bench_statements() -> None:
    from zkbluff.groth16 import prove, setup, verify
    from zkbluff.groth16.zkey import proving_key_from_bytes, proving_key_to_bytes
    from zkbluff.statements import all_statements

    sys.path.insert(0, str(ROOT / "tests"))
    from statement_inputs import valid_inputs  # type: ignore

    emit("## Game statements (mcl backend)")
    emit()
    emit("| statement | constraints | setup | prove (incl. witness) | verify | key file | key load |")
    emit("|---|---|---|---|---|---|---|")
    mcl = get_backend("mcl")
    for key_id, stmt in all_statements().items():
        system, _ = stmt.build()
        t = time.perf_counter()
        pk = setup(system, backend=mcl)
        t_setup = time.perf_counter() - t
        inputs = valid_inputs(stmt, random.Random(key_id))

        def one():
            _, w = stmt.build(inputs)
            return prove(pk, w, backend=mcl), w

        one()
        t_prove = timeit(one, repeat=3)
        proof, w = one()
        t_verify = timeit(lambda: verify(pk.vk, w[1:1 + system.n_public], proof, backend=mcl), repeat=9)
        blob = proving_key_to_bytes(pk)
        t_load = timeit(lambda: proving_key_from_bytes(blob), repeat=3)
        emit(f"| {key_id} | {system.n_constraints} | {ms(t_setup)} | {ms(t_prove)} | {ms(t_verify)} | "
             f"{len(blob) / 1e6:.2f} MB | {ms(t_load)} |")
    emit()


# ------------------------------------------------------------------ bots
def bench_bots() -> None:
    from zkbluff.bots.arena import play_classic, play_five_up, win_rate
    from zkbluff.games.registry import spec_class

    emit("## House bot win rates (100 matches each, seats alternating, rules engine without proofs)")
    emit()
    emit("| table | against | wins | draws | losses |")
    emit("|---|---|---|---|---|")
    for label, play, game in (("classic (standard)", play_classic, "proof-or-bluff"),
                              ("5 Up 2 Down (standard)", play_five_up, "five-up-two-down")):
        spec = spec_class(game)
        for opp_name, opp in (("random legal moves", spec.random_bot), ("itself", spec.house_bot)):
            res = win_rate(play, spec.house_bot, opp, 100)
            emit(f"| {label} | {opp_name} | {res['wins']} | {res['draws']} | {res['losses']} |")
    emit()


def machine() -> str:
    from machine import cpu_model  # benchmarks/machine.py: this script's own folder

    model = cpu_model()
    load = ""
    if hasattr(os, "getloadavg"):
        load = f", load average {os.getloadavg()[0]:.1f} at the start (a shared machine)"
    return f"{os.cpu_count()} cores, {model}{load}"


ALL_SECTIONS = "lean,curve,ntt,builder,groth16,statements,bots"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--sections", default=ALL_SECTIONS)
    args = ap.parse_args()
    emit(f"# zkbluff benchmarks\n\nMachine: {machine()}; Python {sys.version.split()[0]}; "
         f"curve backends {', '.join(available_backends())}; field kernels {', '.join(available_kernels())}.\n")
    for sec in args.sections.split(","):
        {"curve": lambda: bench_curve(args.quick), "ntt": lambda: bench_ntt(args.quick), "builder": bench_builder,
         "groth16": lambda: bench_groth16(args.quick), "statements": bench_statements, "bots": bench_bots,
         "lean": bench_lean}[sec]()
    if not args.quick:
        path = ROOT / "benchmarks" / "results.md"
        text = "\n".join(OUT) + "\n"
        if args.sections != ALL_SECTIONS:
            text = merged_sections(path, text, f"re-measured alone in a later run on {machine()}")
        path.write_text(text + kept_sections(path))


def _split_sections(text: str) -> tuple[str, list[tuple[str, str]]]:
    """The text before the first ``## `` heading, and each (heading line, whole section)."""
    parts = text.split("\n## ")
    return parts[0], [(p.split("\n", 1)[0], "## " + p) for p in parts[1:]]


def merged_sections(path: Path, new_text: str, note: str) -> str:
    """A partial run's sections in place of their old versions; every other section of
    results.md (and its header) kept as it was, so ``--sections`` never drops a table."""
    try:
        old_text = path.read_text()
    except OSError:
        return new_text
    marker = old_text.find("<!-- server_load: start -->")
    old_head, old = _split_sections(old_text if marker < 0 else old_text[:marker])
    _, new = _split_sections(new_text)
    fresh = {}
    for heading, body in new:
        first, _, rest = body.partition("\n")
        fresh[heading] = f"{first}\n\n_This section {note}._\n{rest}"
    merged = [fresh.pop(heading, body) for heading, body in old]
    merged += list(fresh.values())
    return "\n".join([old_head.rstrip("\n") + "\n", *(b.rstrip("\n") + "\n" for b in merged)])


def kept_sections(path: Path) -> str:
    """What other benchmark scripts wrote into results.md (from ``<!-- server_load: start -->``
    to the end of the file: the server load table and its reading), kept on a rewrite."""
    try:
        text = path.read_text()
    except OSError:
        return ""
    start = text.find("<!-- server_load: start -->")
    return "" if start < 0 else "\n" + text[start:]


if __name__ == "__main__":
    main()
