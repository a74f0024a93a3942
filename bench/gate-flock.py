# The kernel-lock floor of bench/gate: fcntl.flock around the same read-increment-write as
# gate-worker.mjs (a JSON counter with the last writer and the hand-over count), for a fixed time.
# Usage: gate-flock.py COUNTER WORKER SECONDS
import fcntl, json, os, sys, time
path, me, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
print("ready", flush=True)
sys.stdin.readline()
now = lambda: time.time() * 1000
waits = []
fd = os.open(path + ".lock", os.O_RDWR | os.O_CREAT, 0o600)
cpu0 = time.process_time()
start = now()
until = start + seconds * 1000
t = start
while t < until:
    fcntl.flock(fd, fcntl.LOCK_EX)
    entered = now()
    with open(path, "r+") as f:
        s = json.loads(f.read() or "{}")
        s = {"n": s.get("n", 0) + 1, "last": me, "hand": s.get("hand", 0) + (0 if s.get("last") == me else 1)}
        f.seek(0)
        f.write(json.dumps(s))
        f.truncate()
    fcntl.flock(fd, fcntl.LOCK_UN)
    waits.append(entered - t)
    t = now()
end = now()
cpu_ms = (time.process_time() - cpu0) * 1000
print(json.dumps({"start": start, "end": end, "ops": len(waits), "cpuMs": cpu_ms, "waits": waits}), flush=True)
