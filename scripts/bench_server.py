"""Server benchmark: council completions per second, latency and peak memory of `council serve`.

Three processes on this machine: the scripted fake upstream (0 ms), `council
serve` with 4 members and a chairman on it, and this load generator, which
keeps N clients each sending `POST /v1/chat/completions` (model `council`)
back to back over real HTTP on 127.0.0.1.

    .venv/bin/python scripts/bench_server.py [--clients 100] [--requests 1000]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_pipeline import MEMBERS, fake_upstream


def write_config(folder: Path, upstream_url: str, port: int, per_host: int | None = None) -> Path:
    members = "".join(
        f"  - {{name: {name}, provider: openai, model: model-{name}, base_url: '{upstream_url}'}}\n" for name in MEMBERS
    )
    path = folder / "council.yaml"
    path.write_text(
        f"members:\n{members}chairman: alpha\n"
        f"server: {{port: {port}}}\n"
        + (f"transport: {{max_connections: 200, max_connections_per_host: {per_host}}}\n" if per_host else "") +
        f"storage: {{path: '{folder / 'server.db'}'}}\n",
        encoding="utf-8",
    )
    return path


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def cpu_seconds(pid: int) -> float:
    """User plus system CPU of process ``pid`` so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def peak_rss_mb(pid: int) -> float:
    """The process's peak resident set (VmHWM), in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def wait_healthy(url: str, process: subprocess.Popen[bytes], timeout_s: float = 20) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError("council serve exited early")
        try:
            with urllib.request.urlopen(url + "/healthz", timeout=1) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("council serve did not become healthy")


async def load(url: str, clients: int, requests: int) -> tuple[float, list[float], int]:
    body = {"model": "council", "messages": [{"role": "user", "content": "Benchmark question?"}]}
    latencies: list[float] = []
    failures = 0
    remaining = requests
    connector = aiohttp.TCPConnector(limit=clients)
    async with aiohttp.ClientSession(connector=connector) as http:
        async def client() -> None:
            nonlocal remaining, failures
            while remaining > 0:
                remaining -= 1
                started = time.perf_counter()
                async with http.post(url + "/v1/chat/completions", json=body) as response:
                    await response.read()
                    failures += response.status != 200
                latencies.append(time.perf_counter() - started)

        async with http.post(url + "/v1/chat/completions", json=body) as warm:
            await warm.read()
        wall = time.perf_counter()
        await asyncio.gather(*(client() for _ in range(clients)))
        wall = time.perf_counter() - wall
    return requests / wall, sorted(latencies), failures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=100)
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--max-connections-per-host", type=int, metavar="N",
                        help="pin the upstream pool (200 in all, N a host; 50 was the fixed default) instead of "
                             "leaving it to be derived from the runs the server admits")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="council-bench-server-"))
    port = free_port()
    with fake_upstream("--latency", "0") as upstream:
        config = write_config(folder, upstream.url, port, args.max_connections_per_host)
        env = {k: v for k, v in os.environ.items() if not k.startswith("COUNCIL_")}
        server = subprocess.Popen([sys.executable, "-m", "council", "serve", "--config", str(config)],
                                  env=env, stdout=subprocess.DEVNULL)
        try:
            url = f"http://127.0.0.1:{port}"
            wait_healthy(url, server)
            cpu = cpu_seconds(server.pid)
            rate, latencies, failures = asyncio.run(load(url, args.clients, args.requests))
            cpu = cpu_seconds(server.pid) - cpu
            rss = peak_rss_mb(server.pid)
        finally:
            server.terminate()
            server.wait(timeout=30)

    def pct(p: float) -> float:
        return latencies[min(len(latencies) - 1, round(p * (len(latencies) - 1)))] * 1000

    print("| Measurement | Result |")
    print("|---|---|")
    print(f"| Council completions/s, {args.clients} concurrent clients, 4 members + chairman, 0 ms upstream | "
          f"{rate:.0f}/s over {args.requests} requests, {failures} failed |")
    print(f"| Latency | p50 {pct(0.5):.0f} ms, p95 {pct(0.95):.0f} ms |")
    print(f"| Server CPU per completion | {cpu / (args.requests + 1) * 1000:.1f} ms (the warm-up's included) |")
    print(f"| Server peak RSS | {rss:.0f} MB |")
    print(f"| server exit code after SIGTERM | {server.returncode} |")


if __name__ == "__main__":
    main()
