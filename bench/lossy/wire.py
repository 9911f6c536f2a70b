#!/usr/bin/env python3
# The lossy bench's wire: two TUN devices joined in user space, every IP packet held DELAY_MS on its way across
# (this kernel has no netem), so TCP and QUIC alike see the added round trip end to end, as on a real path.
# Usage: wire.py HOST_DEV NS_DEV DELAY_MS; prints "ready" once both devices exist; exits when stdin closes.
import collections
import fcntl
import os
import select
import struct
import sys
import time

TUNSETIFF = 0x400454CA
IFF_TUN = 0x0001
IFF_NO_PI = 0x1000


def tun(name: str) -> int:
    fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", name.encode(), IFF_TUN | IFF_NO_PI))
    return fd


def main() -> None:
    host_dev, ns_dev, delay_ms = sys.argv[1], sys.argv[2], float(sys.argv[3])
    a, b = tun(host_dev), tun(ns_dev)
    print("ready", flush=True)
    delay = delay_ms / 1000
    # Packets on their way to each device, in arrival order (one delay for all: FIFO keeps them due in order).
    queues = {a: collections.deque(), b: collections.deque()}
    other = {a: b, b: a}
    stdin = sys.stdin.fileno()
    while True:
        now = time.monotonic()
        due = [q[0][0] for q in queues.values() if q]
        timeout = max(0.0, min(due) - now) if due else None
        ready, _, _ = select.select([a, b, stdin], [], [], timeout)
        if stdin in ready and not os.read(stdin, 4096):
            return
        for fd in (a, b):
            if fd not in ready:
                continue
            while True:
                try:
                    packet = os.read(fd, 65536)
                except BlockingIOError:
                    break
                queues[other[fd]].append((time.monotonic() + delay, packet))
        now = time.monotonic()
        for fd, q in queues.items():
            while q and q[0][0] <= now:
                packet = q.popleft()[1]
                try:
                    os.write(fd, packet)
                except OSError:
                    pass  # the device's queue is full: the packet is lost, as at a congested router


if __name__ == "__main__":
    main()
