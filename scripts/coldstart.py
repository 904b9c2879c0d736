#!/usr/bin/env python3
"""Cold start of jibod builds: the time from starting `jibod run` on the
sim board to its answer of "what time is it", the process's CPU time then
(every thread's, from /proc/PID/task/*/schedstat) and after 5 s (or at its
exit), and its peak resident memory (VmHWM). Builds given together are
run in turn, alternating, so a shared machine's load falls on each alike;
the medians and ranges are printed per build. Linux only.

    scripts/coldstart.py [--runs N] [--audio WAV] JIBOD...

Without --audio the question is typed (--input stdin); with it, WAV is
heard (--input none --audio file:WAV, a sphinx build: "hey jibo, what
time is it" as scripts/qemu-full.sh synthesises it). A JIBOD may be a
script that execs the binary (e.g. under qemu-aarch64-static, where the
loop runs in the robot's process, as with --loop-process=false): exec
keeps the process whose time is read. A run that does not answer within
--timeout seconds is stopped and counted as unanswered.
"""
import argparse
import glob
import os
import queue
import statistics
import subprocess
import threading
import time


def cpu_ms(pid):
    total = 0
    for f in glob.glob(f"/proc/{pid}/task/*/schedstat"):
        try:
            with open(f) as fh:
                total += int(fh.read().split()[0])
        except (OSError, ValueError, IndexError):
            pass  # a thread that ended meanwhile
    return total / 1e6


def peak_mb(pid):
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmHWM"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def one_run(binary, audio, timeout):
    args = [binary, "run", "--board", "sim", "--state", "none", "--speak-wpm", "0", "--realtime=false"]
    args += ["--input", "none", "--audio", "file:" + audio] if audio else ["--input", "stdin"]
    t0 = time.monotonic()
    p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    if not audio:
        p.stdin.write("what time is it\n")
        p.stdin.flush()
    out = {"wall": None, "cpu": None, "cpu5": None, "peak": None}
    lines = queue.Queue()
    reader = threading.Thread(target=lambda: [lines.put(l) for l in p.stdout] and None, daemon=True)
    reader.start()
    while True:
        try:
            line = lines.get(timeout=max(0.0, t0 + timeout - time.monotonic()))
        except queue.Empty:
            break  # no answer in time: counted as none
        if line.startswith("jibo:"):
            out["wall"], out["cpu"] = (time.monotonic() - t0) * 1000, cpu_ms(p.pid)
            break
    while time.monotonic() < t0 + 5 and p.poll() is None:
        out["peak"] = peak_mb(p.pid) or out["peak"]
        # Threads that end take their time along: the most read is the
        # nearest to the whole.
        out["cpu5"] = max(cpu_ms(p.pid), out["cpu5"] or out["cpu"] or 0)
        time.sleep(0.05)
    if p.poll() is None:
        p.stdin.close()
        p.terminate()
    try:
        p.wait(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
    reader.join()
    return out


def summary(xs, unit):
    xs = [x for x in xs if x is not None]
    if not xs:
        return "-"
    return f"median {statistics.median(xs):.1f} {unit} ({min(xs):.1f}-{max(xs):.1f})"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=10, help="runs of each build")
    ap.add_argument("--audio", help="a WAV to hear instead of the typed question (sphinx build)")
    ap.add_argument("--timeout", type=float, default=60, help="seconds a run may take to answer")
    ap.add_argument("jibod", nargs="+")
    a = ap.parse_args()
    results = {b: [] for b in a.jibod}
    loads = []
    for i in range(a.runs):
        for b in a.jibod if i % 2 == 0 else a.jibod[::-1]:
            loads.append(os.getloadavg()[0])
            results[b].append(one_run(b, a.audio, a.timeout))
    print(f"{a.runs} runs each, load average {min(loads):.0f}-{max(loads):.0f}")
    for b, runs in results.items():
        col = lambda k: [r[k] for r in runs]
        print(f"{b}: answered {len([r for r in runs if r['wall'] is not None])}/{len(runs)}")
        print(f"  wall to the answer  {summary(col('wall'), 'ms')}")
        print(f"  CPU to the answer   {summary(col('cpu'), 'ms')}")
        print(f"  CPU in 5 s or exit  {summary(col('cpu5'), 'ms')}")
        print(f"  peak RSS            {summary(col('peak'), 'MB')}")


if __name__ == "__main__":
    main()
