#!/usr/bin/env python3
"""llmb tinygpt: a small GPT-style pretraining run, on CPU or on CUDA GPUs.

Model: token + learned position embedding, N pre-LN transformer blocks
(causal multi-head self-attention, GELU MLP of 4x hidden), final LayerNorm,
LM head tied to the token embedding (GPT-2 style; it keeps the parameter
count small without changing the FLOPs per token).

Rank 0 prints one line per step in the NeMo 2 ProgressPrinter format so
the llmb log parser reads this workload like a real NeMo run.

On CPU (the default) ranks meet over gloo and the step is timed by the
wall clock. With --device cuda every rank drives the GPU of its local rank
(LOCAL_RANK, or SLURM_LOCALID under srun): NCCL across the GPUs, DDP's
bucketed gradient all-reduce, scaled_dot_product_attention (flash or
memory-efficient kernels) where PyTorch has it, fused AdamW, --dtype bf16
as autocast over fp32 weights, optional torch.compile, and step times
measured after torch.cuda.synchronize(). A GPU the machine does not have is
an error naming it, never a CPU run.

Model FLOPs per sample (one sequence, forward + backward, matmuls only,
attention counted without causal savings, as Megatron/NeMo count it):
    72*seq*layers*hidden^2 + 12*seq^2*layers*hidden + 6*seq*hidden*vocab
The value is computed by the caller and passed in with --model-flops.
"""
import argparse
import datetime
import functools
import hashlib
import json
import math
import os
import shutil
import signal
import sys
import tempfile
import time

PREFIX = "llmb-tinygpt"
# The fresh compile cache of this run (fresh_compile_cache), removed at
# exit, on SIGTERM too.
_cache = None


def log_err(msg, rank=None):
    where = "" if rank is None else " rank %d" % rank
    print("%s%s: error: %s" % (PREFIX, where, msg), file=sys.stderr, flush=True)


def on_sigterm(signum, frame):
    # Exit at once: a clean shutdown could block in a collective whose peer
    # has already been killed by the scheduler.
    print("%s: caught signal %d, exiting" % (PREFIX, signum), file=sys.stderr, flush=True)
    if _cache:
        shutil.rmtree(_cache, ignore_errors=True)
    os._exit(128 + signum)


def parse_args(argv):
    ap = argparse.ArgumentParser(description="Tiny GPT pretraining for llmb.")
    ap.add_argument("--data", required=True, help="uint8 token file from prepare_data.py")
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--seq", type=int, default=128)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--vocab", type=int, default=256)
    ap.add_argument("--mbs", type=int, default=4, help="micro-batch size per rank")
    ap.add_argument("--gbs", type=int, default=8, help="global batch size (sequences per step)")
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--model-flops", type=float, required=True,
                    help="model FLOPs per sample (forward+backward), for TFLOPS_per_GPU")
    ap.add_argument("--max-steps-override", type=int, default=None,
                    help="if > 0, run this many steps instead of --steps")
    ap.add_argument("--threads", type=int, default=0,
                    help="torch intra-op threads per rank (0: CPUs / ranks on this node)")
    ap.add_argument("--device", choices=("cpu", "cuda"), default="cpu",
                    help="cpu, or cuda: one GPU per rank, the local rank's")
    ap.add_argument("--dtype", choices=("fp32", "bf16"), default="fp32",
                    help="fp32, or bf16: autocast to bfloat16 over fp32 weights")
    ap.add_argument("--compile", action="store_true", help="torch.compile the model (PyTorch >= 2.0)")
    ap.add_argument("--compile-cache", choices=("fresh", "shared"), default="fresh",
                    help="with --compile: fresh, torch.compile's caches in a directory of this run's own "
                         "(every run compiles, as the first one on a node does), or shared, the machine's "
                         "(the default of PyTorch)")
    ap.add_argument("--extra-work", type=int, default=0,
                    help="extra forward passes of each micro-batch per step, without gradients: "
                         "real work that makes every step slower (regression tests)")
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                    help="step time as wall-clock seconds, or as this process's CPU seconds "
                         "(what the load of a shared machine changes least)")
    return ap.parse_args(argv)


def dist_env():
    """(rank, world_size, master_addr, master_port, local_world_size, local_rank)."""
    env = os.environ
    if "RANK" in env and "WORLD_SIZE" in env:
        rank, world = int(env["RANK"]), int(env["WORLD_SIZE"])
        local = int(env.get("LOCAL_WORLD_SIZE", world))
        local_rank = int(env.get("LOCAL_RANK", rank % max(1, local)))
    elif "SLURM_PROCID" in env and "SLURM_NTASKS" in env:
        rank, world = int(env["SLURM_PROCID"]), int(env["SLURM_NTASKS"])
        # SLURM_NTASKS_PER_NODE is set only when requested explicitly.
        local = int(env.get("SLURM_NTASKS_PER_NODE", world) or world)
        local_rank = int(env.get("SLURM_LOCALID", rank % max(1, local)))
    else:
        return 0, 1, None, None, 1, 0
    addr = env.get("MASTER_ADDR", "127.0.0.1")
    if "MASTER_PORT" in env:
        port = int(env["MASTER_PORT"])
    else:
        # Derive the port from the job id so concurrent jobs on one node differ.
        jid = env.get("SLURM_JOB_ID") or env.get("LLMB_JOB_ID")
        port = 20000 + int(jid) % 20000 if jid and jid.isdigit() else 29500
    if not (0 <= rank < world):
        raise ValueError("rank %d out of range for world size %d" % (rank, world))
    return rank, world, addr, port, max(1, local), local_rank


def fresh_compile_cache(args, env, mkdtemp=tempfile.mkdtemp):
    """With --compile and --compile-cache fresh, point torch.compile's
    caches (Inductor's, and Triton's inside it) at a new directory and
    return it; None where the caller named Inductor's cache or asked for
    the machine's. On one H200 a run that compiled from nothing stepped
    4% faster than the runs that found its kernels cached (three of each,
    alternated, at the same clocks and temperatures:
    bench/results/tinygpt-h200.md): a node whose cache is warm some nights
    and cold others makes two modes of one configuration. Fresh every run
    is the state every node can reproduce. Set before torch is imported."""
    if not args.compile or args.compile_cache != "fresh" or "TORCHINDUCTOR_CACHE_DIR" in env:
        return None
    d = mkdtemp(prefix="llmb-tinygpt-compile-")
    env["TORCHINDUCTOR_CACHE_DIR"] = d
    env.setdefault("TRITON_CACHE_DIR", os.path.join(d, "triton"))
    return d


class DeviceError(RuntimeError):
    """The device the configuration asks for is not on this machine."""


def cuda_problem(available, count, local_world, local_rank, torch_version, cuda_version):
    """Why --device cuda cannot run here, or None. Pure, so it is testable
    on a machine without a GPU."""
    if not available:
        why = ("this PyTorch %s is built without CUDA" % torch_version if not cuda_version
               else "PyTorch %s with CUDA %s sees no GPU" % (torch_version, cuda_version))
        vis = os.environ.get("CUDA_VISIBLE_DEVICES")
        return ("cuda requested but torch.cuda.is_available() is false: %s%s"
                % (why, "" if vis is None else " (CUDA_VISIBLE_DEVICES=%r)" % vis))
    if count < local_world:
        return ("needs %d GPUs (one per rank on this node), found %d" % (local_world, count))
    if not 0 <= local_rank < count:
        return "local rank %d has no GPU: found %d" % (local_rank, count)
    return None


def pick_device(args, local_world, local_rank):
    import torch
    if args.device == "cpu":
        return torch.device("cpu")
    msg = cuda_problem(torch.cuda.is_available(), torch.cuda.device_count() if torch.cuda.is_available() else 0,
                       local_world, local_rank, torch.__version__, torch.version.cuda)
    if msg:
        raise DeviceError(msg)
    dev = torch.device("cuda", local_rank)
    torch.cuda.set_device(dev)
    if args.dtype == "bf16" and not torch.cuda.is_bf16_supported():
        raise DeviceError("bf16 requested but %s does not support bfloat16" % torch.cuda.get_device_name(dev))
    return dev


def pick_threads(requested, local_world):
    if requested > 0:
        return requested
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count() or 1
    # If the launcher already bound each rank to its own CPUs, use them all;
    # otherwise the ranks on this node share the machine.
    if usable >= (os.cpu_count() or usable):
        usable //= local_world
    return max(1, usable)


def load_tokens(path, vocab):
    import torch
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise RuntimeError("cannot read data file %s: %s" % (path, e.strerror))
    side = path + ".json"
    if os.path.exists(side):
        with open(side) as f:
            meta = json.load(f)
        if meta.get("tokens") != len(raw):
            raise RuntimeError("%s has %d tokens but %s says %s" % (path, len(raw), side, meta.get("tokens")))
        if meta.get("sha256") and meta["sha256"] != hashlib.sha256(raw).hexdigest():
            raise RuntimeError("%s does not match the sha256 in %s" % (path, side))
    else:
        print("%s: warning: no sidecar %s; data completeness not verified" % (PREFIX, side),
              file=sys.stderr, flush=True)
    data = torch.frombuffer(bytearray(raw), dtype=torch.uint8)
    if data.numel() and int(data.max()) >= vocab:
        raise RuntimeError("data has token %d but --vocab is %d" % (int(data.max()), vocab))
    return data


def build_model(args, sdpa=False):
    """The GPT. sdpa: attention through F.scaled_dot_product_attention
    (fused kernels), else the explicit masked softmax."""
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    class Block(nn.Module):
        def __init__(self, h, nh, seq):
            super().__init__()
            self.nh = nh
            self.ln1 = nn.LayerNorm(h)
            self.qkv = nn.Linear(h, 3 * h)
            self.proj = nn.Linear(h, h)
            self.ln2 = nn.LayerNorm(h)
            self.fc = nn.Linear(h, 4 * h)
            self.out = nn.Linear(4 * h, h)
            if not sdpa:
                self.register_buffer("mask", torch.ones(seq, seq, dtype=torch.bool).tril(), persistent=False)

        def attn(self, x):
            b, t, h = x.shape
            q, k, v = self.qkv(x).split(h, dim=2)
            q, k, v = (z.view(b, t, self.nh, h // self.nh).transpose(1, 2) for z in (q, k, v))
            if sdpa:
                y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            else:
                s = (q @ k.transpose(-2, -1)) / math.sqrt(h // self.nh)
                s = s.masked_fill(~self.mask[:t, :t], float("-inf"))
                y = F.softmax(s, dim=-1) @ v
            return self.proj(y.transpose(1, 2).reshape(b, t, h))

        def forward(self, x):
            x = x + self.attn(self.ln1(x))
            return x + self.out(F.gelu(self.fc(self.ln2(x))))

    class TinyGPT(nn.Module):
        def __init__(self, a):
            super().__init__()
            self.tok = nn.Embedding(a.vocab, a.hidden)
            self.pos = nn.Embedding(a.seq, a.hidden)
            self.blocks = nn.ModuleList(Block(a.hidden, a.heads, a.seq) for _ in range(a.layers))
            self.ln_f = nn.LayerNorm(a.hidden)
            self.head = nn.Linear(a.hidden, a.vocab, bias=False)
            self.head.weight = self.tok.weight  # tied
            self.apply(self._init)
            # GPT-2: scale the residual output projections by depth.
            for n, p in self.named_parameters():
                if n.endswith("proj.weight") or n.endswith("out.weight"):
                    nn.init.normal_(p, 0.0, 0.02 / math.sqrt(2 * a.layers))

        @staticmethod
        def _init(m):
            if isinstance(m, (nn.Linear, nn.Embedding)):
                nn.init.normal_(m.weight, 0.0, 0.02)
            if isinstance(m, nn.Linear) and m.bias is not None:
                nn.init.zeros_(m.bias)

        def forward(self, idx, targets):
            t = idx.shape[1]
            x = self.tok(idx) + self.pos(torch.arange(t, device=idx.device))
            for blk in self.blocks:
                x = blk(x)
            logits = self.head(self.ln_f(x))
            return F.cross_entropy(logits.view(-1, logits.shape[-1]), targets.reshape(-1))

    return TinyGPT(args)


def validate(args, world):
    errs = []
    for name in ("steps", "seq", "layers", "hidden", "heads", "vocab", "mbs", "gbs"):
        if getattr(args, name) < 1:
            errs.append("--%s must be >= 1" % name)
    if args.extra_work < 0:
        errs.append("--extra-work must be >= 0")
    if args.hidden % max(1, args.heads):
        errs.append("--hidden %d is not divisible by --heads %d" % (args.hidden, args.heads))
    if args.gbs % (world * args.mbs):
        errs.append("--gbs %d is not divisible by world_size*mbs = %d*%d = %d"
                    % (args.gbs, world, args.mbs, world * args.mbs))
    if not args.lr > 0:
        errs.append("--lr must be > 0")
    if not args.model_flops > 0:
        errs.append("--model-flops must be > 0")
    if errs:
        raise ValueError("; ".join(errs))


def fmt(v):
    # NeMo's ProgressPrinter formats metrics with {val:.4}.
    return "{:.4}".format(float(v))


def megatron_flops(args):
    """Model FLOPs per sample of this model, as the recipe's formula counts
    them: 72*seq*L*h^2 + 12*seq^2*L*h + 6*seq*h*V."""
    s, L, h, v = args.seq, args.layers, args.hidden, args.vocab
    return 72 * s * L * h * h + 12 * s * s * L * h + 6 * s * h * v


def make_optimizer(torch, params, args, dev):
    """AdamW, fused into one kernel on CUDA where PyTorch has it (>= 2.0)."""
    kw = dict(lr=args.lr, betas=(0.9, 0.95), weight_decay=0.1)
    if dev.type == "cuda":
        try:
            return torch.optim.AdamW(params, fused=True, **kw), "fused"
        except (TypeError, RuntimeError):
            pass
    return torch.optim.AdamW(params, **kw), "plain"


def prepare_model(torch, args, dev, world, local_rank):
    """(model to call, parameters, attention kind). CPU: the model as it is,
    gradients all-reduced by train(). CUDA: DDP over NCCL for world > 1,
    then torch.compile if asked."""
    import torch.nn.functional as F
    sdpa = dev.type == "cuda" and hasattr(F, "scaled_dot_product_attention")
    if args.compile and not hasattr(torch, "compile"):
        raise RuntimeError("--compile needs torch.compile (PyTorch >= 2.0); this is PyTorch %s" % torch.__version__)
    # Built on the CPU with the seed, then moved: every device starts from
    # the same weights.
    model = build_model(args, sdpa=sdpa).to(dev)
    params = list(model.parameters())
    run = model
    if dev.type == "cuda" and world > 1:
        from torch.nn.parallel import DistributedDataParallel as DDP
        # DDP broadcasts rank 0's weights and all-reduces gradients in
        # buckets while the backward runs. Every micro-batch syncs (no
        # no_sync): the sum is the same, and compiled DDP stays simple.
        run = DDP(model, device_ids=[local_rank])
    if args.compile:
        run = torch.compile(run)
    return run, params, "sdpa" if sdpa else "explicit"


def train(args, rank, world, addr, port, local_world, local_rank=0):
    import contextlib
    import torch
    import torch.distributed as dist

    dev = pick_device(args, local_world, local_rank)
    cuda = dev.type == "cuda"
    nthreads = pick_threads(args.threads, local_world)
    torch.set_num_threads(nthreads)
    torch.manual_seed(args.seed)

    if world > 1:
        dist.init_process_group("nccl" if cuda else "gloo", init_method="tcp://%s:%d" % (addr, port),
                                rank=rank, world_size=world,
                                timeout=datetime.timedelta(seconds=300))

    data = load_tokens(args.data, args.vocab)
    if data.numel() < args.seq + 2:
        raise RuntimeError("data file %s has %d tokens, need more than --seq %d + 1"
                           % (args.data, data.numel(), args.seq))

    model, params, attention = prepare_model(torch, args, dev, world, local_rank)
    if world > 1 and not cuda:
        # Same seed gives the same weights; broadcast anyway so ranks can never drift.
        for p in model.parameters():
            dist.broadcast(p.data, 0)
    nparams = sum(p.numel() for p in params)
    opt, adamw = make_optimizer(torch, params, args, dev)
    if args.dtype == "bf16":
        autocast = functools.partial(torch.autocast, dev.type, dtype=torch.bfloat16)
    else:
        autocast = contextlib.nullcontext

    steps = args.max_steps_override if args.max_steps_override and args.max_steps_override > 0 else args.steps
    nmicro = args.gbs // (world * args.mbs)
    per_rank = args.gbs // world
    # One generator shared by all ranks draws the whole global batch; each rank
    # takes its slice, so the sample stream does not depend on world size.
    gen = torch.Generator().manual_seed(args.seed + 1)
    offs = torch.arange(args.seq + 1)

    own = megatron_flops(args)
    if abs(own - args.model_flops) > 1e-6 * own and rank == 0:
        print("%s: warning: --model-flops %.6g is not this model's count %.6g: TFLOPS_per_GPU uses --model-flops"
              % (PREFIX, args.model_flops, own), file=sys.stderr, flush=True)
    if rank == 0:
        gpu = " gpu=%s" % torch.cuda.get_device_name(dev).replace(" ", "_") if cuda else ""
        print("%s: config steps=%d seq=%d layers=%d hidden=%d heads=%d vocab=%d mbs=%d gbs=%d "
              "lr=%s seed=%d world_size=%d micro_batches=%d threads=%d lm_head=tied "
              "params=%d model_flops_per_sample=%.6g tokens=%d "
              "device=%s%s dtype=%s attention=%s adamw=%s compile=%d torch=%s"
              % (PREFIX, steps, args.seq, args.layers, args.hidden, args.heads, args.vocab, args.mbs,
                 args.gbs, fmt(args.lr), args.seed, world, nmicro, nthreads, nparams,
                 args.model_flops, data.numel(), dev.type, gpu, args.dtype, attention, adamw,
                 int(args.compile), torch.__version__), flush=True)

    losses = []
    model.train()
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    for step in range(steps):
        t0 = clock()
        starts = torch.randint(0, data.numel() - args.seq - 1, (args.gbs,), generator=gen)
        mine = starts[rank * per_rank:(rank + 1) * per_rank]
        windows = data[mine.unsqueeze(1) + offs].to(dev).long()
        opt.zero_grad(set_to_none=True)
        loss_sum = torch.zeros((), device=dev)
        for m in range(nmicro):
            w = windows[m * args.mbs:(m + 1) * args.mbs]
            with autocast():
                loss = model(w[:, :-1], w[:, 1:]) / nmicro
            loss.backward()
            loss_sum += loss.detach().float()
            with torch.no_grad():
                for _ in range(args.extra_work):
                    with autocast():
                        model(w[:, :-1], w[:, 1:])
        if cuda:
            # DDP has averaged the gradients; only the loss is left.
            if world > 1:
                dist.all_reduce(loss_sum)
                loss_sum /= world
            gl = float(loss_sum)
        else:
            # One all-reduce for all gradients plus the loss.
            flat = torch.cat([p.grad.reshape(-1) for p in params] + [loss_sum.reshape(1)])
            if world > 1:
                dist.all_reduce(flat)
                flat /= world
            i = 0
            for p in params:
                n = p.numel()
                p.grad.copy_(flat[i:i + n].view_as(p.grad))
                i += n
            gl = float(flat[-1])
        if not math.isfinite(gl):
            raise RuntimeError("loss is %s at step %d" % (gl, step))
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        if cuda:
            # Kernels run asynchronously: the step ends when the GPU is done.
            torch.cuda.synchronize(dev)
        dt = torch.tensor([clock() - t0], dtype=torch.float64, device=dev)
        if world > 1:
            dist.all_reduce(dt, op=dist.ReduceOp.MAX)
        dt = float(dt)
        losses.append(gl)
        if rank == 0:
            tflops = args.gbs * args.model_flops / dt / world / 1e12
            print("Training epoch 0, iteration %d/%d | lr: %s | global_batch_size: %d | "
                  "global_step: %d | reduced_train_loss: %s | train_step_timing in s: %s | "
                  "TFLOPS_per_GPU: %s | consumed_samples: %d"
                  % (step, steps - 1, fmt(opt.param_groups[0]["lr"]), args.gbs, step, fmt(gl),
                     fmt(dt), fmt(tflops), (step + 1) * args.gbs), flush=True)

    if cuda and rank == 0:
        print("%s: peak GPU memory %.2f GiB" % (PREFIX, torch.cuda.max_memory_allocated(dev) / 2**30), flush=True)
    if world > 1:
        if cuda:
            dist.barrier(device_ids=[local_rank])
        else:
            dist.barrier()
        dist.destroy_process_group()
    if rank == 0:
        print("%s: done, loss %s -> %s" % (PREFIX, fmt(losses[0]), fmt(losses[-1])), flush=True)


def main(argv=None):
    signal.signal(signal.SIGTERM, on_sigterm)
    args = parse_args(sys.argv[1:] if argv is None else argv)
    global _cache
    rank = None
    try:
        rank, world, addr, port, local_world, local_rank = dist_env()
        validate(args, world)
        _cache = fresh_compile_cache(args, os.environ)
        if _cache and rank == 0:
            print("%s: torch.compile caches: a fresh directory of this run's own" % PREFIX, flush=True)
        train(args, rank, world, addr, port, local_world, local_rank)
    except KeyboardInterrupt:
        log_err("interrupted", rank)
        return 130
    except Exception as e:  # any failure must surface as a non-zero exit
        log_err("%s: %s" % (type(e).__name__, e), rank)
        return 1
    finally:
        if _cache:
            shutil.rmtree(_cache, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
