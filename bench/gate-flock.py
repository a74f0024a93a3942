# The kernel-lock baseline of bench/gate: fcntl.flock around a read-increment-write of a counter file.
import fcntl, json, os, sys, time
path, n = sys.argv[1], int(sys.argv[2])
print("ready", flush=True)
sys.stdin.readline()
now = lambda: time.time() * 1000
lat = []
start = now()
fd = os.open(path + ".lock", os.O_RDWR | os.O_CREAT, 0o600)
for _ in range(n):
    t = now()
    fcntl.flock(fd, fcntl.LOCK_EX)
    with open(path, "r+") as f:
        v = int(f.read() or "0")
        f.seek(0)
        f.write(str(v + 1))
        f.truncate()
    fcntl.flock(fd, fcntl.LOCK_UN)
    lat.append(now() - t)
end = now()
print(json.dumps({"start": start, "end": end, "lat": lat}), flush=True)
