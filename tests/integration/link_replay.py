#!/usr/bin/env python3
"""Capture and replay of a switchyard-sched link handshake (fabric-netns.sh).

  link_replay.py proxy LISTEN_HOST LISTEN_PORT TO_HOST TO_PORT CAPTURE
      forward one connection both ways and write the node's first frame
      (its AUTH answer to the scheduler's challenge) to CAPTURE
  link_replay.py replay HOST PORT CAPTURE
      connect to the scheduler, read its challenge, send the captured
      AUTH, print "accepted" or "refused" from its answer
"""
import socket
import struct
import sys
import threading


def recv_exact(s, n):
    b = b""
    while len(b) < n:
        c = s.recv(n - len(b))
        if not c:
            raise EOFError
        b += c
    return b


def recv_frame(s):
    (n,) = struct.unpack(">I", recv_exact(s, 4))
    return struct.pack(">I", n) + recv_exact(s, n)


def pump(a, b):
    try:
        while True:
            d = a.recv(65536)
            if not d:
                break
            b.sendall(d)
    except OSError:
        pass
    for s in (a, b):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def proxy(lh, lp, th, tp, capture):
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((lh, int(lp)))
    ls.listen(1)
    print("listening", flush=True)
    c, _ = ls.accept()
    s = socket.create_connection((th, int(tp)))
    hello = recv_frame(s)
    c.sendall(hello)
    auth = recv_frame(c)
    with open(capture, "wb") as f:
        f.write(auth)
    s.sendall(auth)
    t = threading.Thread(target=pump, args=(s, c))
    t.start()
    pump(c, s)
    t.join()


def replay(h, p, capture):
    auth = open(capture, "rb").read()
    s = socket.create_connection((h, int(p)))
    recv_frame(s)  # a fresh challenge, not the one the capture answers
    s.sendall(auth)
    try:
        res = recv_frame(s)
        print("accepted" if res[4] == 0 else "refused", flush=True)
    except EOFError:
        print("refused (closed)", flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "proxy":
        proxy(*sys.argv[2:7])
    else:
        replay(*sys.argv[2:5])
