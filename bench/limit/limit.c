/* The `limit` row of the benchmark: what this machine can do for a fixed answer. One thread on raw epoll; for every
 * request head (everything up to its blank line) it writes the scenario's exact response bytes, chosen by the path
 * in the request line. No HTTP parsing beyond that, no Date header, no allocation per request.
 * Built by bench/lib/limit.ts with gcc. Usage: limit <port> <responses-file>, the file holding records
 * "<path> <length>\n<length bytes of response>" (the harness writes one per dynamic scenario). */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "limit-common.h"

struct conn { int fd; size_t in_len; char in[IN_CAP]; size_t out_len, out_pos; char *out; };

static void close_conn(int ep, struct conn *c) {
  epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
  close(c->fd);
  free(c->out);
  free(c);
}

/* Writes pending output; returns 0 when all is out, 1 when the socket is full, -1 on error. */
static int flush(struct conn *c) {
  while (c->out_pos < c->out_len) {
    ssize_t n = write(c->fd, c->out + c->out_pos, c->out_len - c->out_pos);
    if (n > 0) c->out_pos += (size_t)n;
    else if (n < 0 && errno == EAGAIN) return 1;
    else if (n < 0 && errno == EINTR) continue;
    else return -1;
  }
  c->out_pos = c->out_len = 0;
  return 0;
}

static int on_readable(struct conn *c) {
  for (;;) {
    if (c->in_len == IN_CAP) return -1; /* a head larger than 64 KiB: not a benchmark request */
    ssize_t n = read(c->fd, c->in + c->in_len, IN_CAP - c->in_len);
    if (n == 0) return -1;
    if (n < 0) {
      if (errno == EAGAIN) break;
      if (errno == EINTR) continue;
      return -1;
    }
    c->in_len += (size_t)n;
    size_t pos = 0;
    for (;;) {
      char *blank = memmem(c->in + pos, c->in_len - pos, "\r\n\r\n", 4);
      if (!blank) break;
      size_t head_len = (size_t)(blank - (c->in + pos)) + 4;
      const char *resp;
      size_t resp_len;
      answer(c->in + pos, head_len, &resp, &resp_len);
      if (c->out_len + resp_len > OUT_CAP) return -1; /* the client reads nothing: give up on it */
      memcpy(c->out + c->out_len, resp, resp_len);
      c->out_len += resp_len;
      pos += head_len;
    }
    memmove(c->in, c->in + pos, c->in_len - pos);
    c->in_len -= pos;
  }
  return flush(c) < 0 ? -1 : 0;
}

int main(int argc, char **argv) {
  int lfd = start(argc, argv, "limit", SOCK_NONBLOCK);
  int one = 1;
  int ep = epoll_create1(0);
  struct epoll_event ev = {.events = EPOLLIN, .data.ptr = NULL};
  epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev);
  struct epoll_event events[256];
  for (;;) {
    int n = epoll_wait(ep, events, 256, -1);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) die("epoll_wait");
    for (int i = 0; i < n; i++) {
      struct conn *c = events[i].data.ptr;
      if (c == NULL) {
        for (;;) {
          int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK);
          if (fd < 0) break;
          setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
          struct conn *nc = malloc(sizeof *nc);
          if (!nc) {
            close(fd);
            continue;
          }
          nc->fd = fd;
          nc->in_len = nc->out_len = nc->out_pos = 0;
          nc->out = malloc(OUT_CAP);
          struct epoll_event cev = {.events = EPOLLIN | EPOLLOUT | EPOLLET, .data.ptr = nc};
          if (!nc->out || epoll_ctl(ep, EPOLL_CTL_ADD, fd, &cev) < 0) {
            close(fd);
            free(nc->out);
            free(nc);
          }
        }
        continue;
      }
      int bad = (events[i].events & (EPOLLERR | EPOLLHUP)) != 0;
      if (!bad && (events[i].events & EPOLLOUT) && c->out_len) bad = flush(c) < 0;
      if (!bad && (events[i].events & EPOLLIN)) bad = on_readable(c) < 0;
      if (bad) close_conn(ep, c);
    }
  }
}
