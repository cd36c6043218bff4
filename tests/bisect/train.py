"""train.py STEPS VENV [--extra-work N]: the training of t-bisect-slurm.

Each step does a fixed amount of work (0.25 s), N half-steps more with
EXTRA_WORK, then calls steplib.step(i) from the venv's clone of steplib,
whose commits decide what else a step does. The step time printed is the
measured one; NeMo-format step lines, rank 0 only.
"""
import os
import sys
import time

steps, venv = int(sys.argv[1]), sys.argv[2]
extra = int(sys.argv[4]) if len(sys.argv) > 4 and sys.argv[3] == "--extra-work" else 0
if os.environ.get("RANK", os.environ.get("SLURM_PROCID", "0")) != "0":
    sys.exit(0)
sys.path.insert(0, os.path.join(venv, "src", "steplib"))
import steplib  # noqa: E402

print(f"bs train: steplib {steplib.__doc__.strip()}, extra work {extra}", flush=True)
for i in range(steps):
    t0 = time.perf_counter()
    time.sleep(0.25 * (1 + 0.5 * extra))
    steplib.step(i)
    dt = time.perf_counter() - t0
    print(f"Training epoch 0, iteration {i}/{steps - 1} | reduced_train_loss: 2.5 | "
          f"train_step_timing in s: {dt:.6f} | TFLOPS_per_GPU: 1.0 | consumed_samples: {(i + 1) * 2}", flush=True)
