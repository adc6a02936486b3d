#!/usr/bin/env python3
"""torch_ddp.py - PyTorch's own data parallel training of the lecture's MLP, on CPU or on
GPUs, the yardstick for `collviz train ddp` (bench/train_bench.sh runs both and prints the
ratio).

Same shapes and optimizer as collviz: L layers of D x D weights (randn / sqrt(D)), batch B
split over W processes, x = gelu(x @ W) per layer, loss = mean(x^2), AdamW (lr 1e-3,
PyTorch's defaults otherwise), fp32. Backend gloo, torch.set_num_threads(1) per process,
W processes started with torch.multiprocessing.

--device cuda: one GPU per process (rank r on GPU r), backend nccl, TF32 off (collviz's
cuBLAS path is plain fp32), each step's end after torch.cuda.synchronize(). With one rank
there is no process group: variant "single" is the plain loop on one GPU.

Two variants, both timed:
  ddp     torch.nn.parallel.DistributedDataParallel around the model (bucketed gradient
          all-reduce overlapped with backward: PyTorch's production DDP);
  lecture the lecture's loop: backward, then dist.all_reduce(param.grad) per parameter
          (SUM then divide by W: gloo has no AVG).
Step time: after a barrier, each rank times zero_grad + forward + backward + sync +
optimizer step; a step's time is the slowest rank's. Warm-up steps are not reported.
Prints one JSON object on stdout.
"""
import argparse
import json
import math
import os
import socket
import statistics
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn.functional as F


class MLP(torch.nn.Module):
    def __init__(self, layers, dim):
        super().__init__()
        self.weights = torch.nn.ParameterList(
            [torch.nn.Parameter(torch.randn(dim, dim) / math.sqrt(dim)) for _ in range(layers)])

    def forward(self, x):
        for w in self.weights:
            x = F.gelu(x @ w)
        return x


def worker(rank, world, args, port, variant, queue):
    torch.set_num_threads(1)
    cuda = args.device == "cuda"
    dev = torch.device("cuda", rank) if cuda else torch.device("cpu")
    if cuda:
        torch.cuda.set_device(dev)
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
    grouped = world > 1
    if grouped:
        os.environ["MASTER_ADDR"] = "127.0.0.1"
        os.environ["MASTER_PORT"] = str(port)
        if cuda:
            dist.init_process_group("nccl", rank=rank, world_size=world, device_id=dev)
        else:  # (device_id is newer than some distributions' torch)
            dist.init_process_group("gloo", rank=rank, world_size=world)
    torch.manual_seed(args.seed)  # same weights and data on every rank
    model = MLP(args.layers, args.dim).to(dev)
    data = torch.randn(args.batch, args.dim).to(dev)
    rows = args.batch // world
    local = data[rank * rows:(rank + 1) * rows]
    if variant == "ddp":
        net = torch.nn.parallel.DistributedDataParallel(model, device_ids=[rank] if cuda else None)
    else:
        net = model
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    times = []
    losses = []
    for step in range(args.warmup + args.steps):
        if grouped:
            dist.barrier()
        if cuda:
            torch.cuda.synchronize()
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        x = net(local)
        loss = x.square().mean()
        loss.backward()
        if variant == "lecture":
            # Gloo has no ReduceOp.AVG: sum, then divide (what DDP does inside too).
            for p in model.parameters():
                dist.all_reduce(p.grad, op=dist.ReduceOp.SUM)
                p.grad.div_(world)
        opt.step()
        if cuda:
            torch.cuda.synchronize()
        t1 = time.perf_counter()
        if step >= args.warmup:
            times.append(t1 - t0)
            losses.append(loss.item())
    # The slowest rank decides each step's time.
    t = torch.tensor(times, dtype=torch.float64, device=dev)
    if grouped:
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
    if rank == 0:
        queue.put({"step_s": t.cpu().tolist(), "loss_rank0": losses})
    if grouped:
        dist.destroy_process_group()


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(args, variant):
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    port = free_port()
    start = time.monotonic()
    procs = [ctx.Process(target=worker, args=(r, args.ranks, args, port, variant, queue))
             for r in range(args.ranks)]
    for p in procs:
        p.start()
    out = None
    try:
        while out is None:
            try:
                out = queue.get(timeout=1.0)
            except Exception:
                # A worker that died (exception, signal) never reports: stop waiting.
                if any(p.exitcode not in (None, 0) for p in procs):
                    raise RuntimeError("a %s worker failed" % variant)
                if time.monotonic() - start > args.timeout:
                    raise RuntimeError("%s run passed --timeout %g s" % (variant, args.timeout))
    finally:
        for p in procs:
            p.join(timeout=30)
            if p.is_alive():
                p.terminate()
    out["variant"] = variant
    out["median_step_s"] = statistics.median(out["step_s"])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ranks", type=int, default=4)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--dim", type=int, default=1024)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--variants", default="ddp,lecture")
    ap.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    args = ap.parse_args()
    if args.device == "cuda" and args.ranks > torch.cuda.device_count():
        print(f"torch_ddp.py: --ranks {args.ranks} needs {args.ranks} GPUs, torch sees "
              f"{torch.cuda.device_count()}", file=sys.stderr)
        return 2
    if args.ranks == 1:
        args.variants = "single"  # no process group: the plain loop
    if args.batch % args.ranks:
        print(f"torch_ddp.py: --batch {args.batch} is not divisible by --ranks {args.ranks}",
              file=sys.stderr)
        return 2
    result = {"torch": torch.__version__, "ranks": args.ranks, "layers": args.layers,
              "dim": args.dim, "batch": args.batch, "device": args.device,
              "backend": "none" if args.ranks == 1 else "nccl" if args.device == "cuda" else "gloo",
              "threads_per_process": 1, "runs": []}
    if args.device == "cuda":
        result["gpu"] = torch.cuda.get_device_name(0)
    for variant in args.variants.split(","):
        result["runs"].append(run(args, variant))
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
