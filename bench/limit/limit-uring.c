/* The `limit-uring` row of the benchmark: the `limit` responder (limit.c: fixed response bytes per path, chosen by
 * the request line, one thread) on io_uring instead of epoll, so the bench knows the floor of a server that pays one
 * io_uring_enter per loop turn: multishot accept, multishot recv into a provided buffer ring, one send per connection
 * in flight, everything submitted and reaped in the same call. Raw syscalls and <linux/io_uring.h>, no liburing.
 * Built by bench/lib/limit.ts with gcc. Usage: limit-uring <port> <responses-file> (the format limit.c reads). */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/io_uring.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "limit-common.h"

#define ENTRIES 4096
#define BUFS 4096 /* provided receive buffers (a power of two) */
#define BUF_SIZE 4096
#define BGID 1

/* A connection: bytes of an unfinished head, and two output buffers (one being sent, one filling). `ops` counts
 * operations in flight that name it; it is freed when the last one completes after it was closed. */
struct conn {
  int fd, ops, closed, sending;
  size_t in_len;
  char *out[2];
  size_t out_len[2], sent;
  char in[IN_CAP];
};

enum { OP_ACCEPT = 1, OP_RECV = 2, OP_SEND = 3 };

/* The ring: submission and completion queues mapped from the kernel, and the provided-buffer ring. */
static int ring_fd;
static unsigned *sq_tail, *sq_mask, *sq_array, *cq_head, *cq_tail, *cq_mask;
static struct io_uring_sqe *sqes;
static struct io_uring_cqe *cqes;
static unsigned sq_local_tail, to_submit;
static struct io_uring_buf_ring *br;
static char *buf_base;
static unsigned short br_tail;

static void ring_init(void) {
  struct io_uring_params p = {0};
  /* One thread submits, and completions are only needed when it asks for them (task work deferred to the enter). */
  p.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_CQSIZE;
  p.cq_entries = ENTRIES * 4;
  ring_fd = (int)syscall(__NR_io_uring_setup, ENTRIES, &p);
  if (ring_fd < 0) die("io_uring_setup");
  if (!(p.features & IORING_FEAT_SINGLE_MMAP)) die("io_uring without IORING_FEAT_SINGLE_MMAP");
  size_t sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned);
  size_t cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
  size_t len = sq_len > cq_len ? sq_len : cq_len;
  char *q = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring_fd, IORING_OFF_SQ_RING);
  if (q == MAP_FAILED) die("mmap sq/cq");
  sq_tail = (unsigned *)(q + p.sq_off.tail);
  sq_mask = (unsigned *)(q + p.sq_off.ring_mask);
  sq_array = (unsigned *)(q + p.sq_off.array);
  cq_head = (unsigned *)(q + p.cq_off.head);
  cq_tail = (unsigned *)(q + p.cq_off.tail);
  cq_mask = (unsigned *)(q + p.cq_off.ring_mask);
  cqes = (struct io_uring_cqe *)(q + p.cq_off.cqes);
  sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
              ring_fd, IORING_OFF_SQES);
  if (sqes == MAP_FAILED) die("mmap sqes");
  sq_local_tail = *sq_tail;

  /* The provided buffers: a ring of BUFS entries the kernel picks receive buffers from. */
  size_t ring_bytes = BUFS * sizeof(struct io_uring_buf);
  br = mmap(NULL, ring_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  buf_base = malloc((size_t)BUFS * BUF_SIZE);
  if (br == MAP_FAILED || !buf_base) die("buffer ring memory");
  struct io_uring_buf_reg reg = {.ring_addr = (uint64_t)(uintptr_t)br, .ring_entries = BUFS, .bgid = BGID};
  if (syscall(__NR_io_uring_register, ring_fd, IORING_REGISTER_PBUF_RING, &reg, 1) < 0)
    die("IORING_REGISTER_PBUF_RING");
  for (unsigned i = 0; i < BUFS; i++) {
    struct io_uring_buf *b = &br->bufs[(br_tail + i) & (BUFS - 1)];
    b->addr = (uint64_t)(uintptr_t)(buf_base + (size_t)i * BUF_SIZE);
    b->len = BUF_SIZE;
    b->bid = (unsigned short)i;
  }
  br_tail += BUFS;
  atomic_store_explicit((_Atomic unsigned short *)&br->tail, br_tail, memory_order_release);
}

/* Hands a receive buffer back to the kernel. */
static void buf_return(unsigned short bid) {
  struct io_uring_buf *b = &br->bufs[br_tail & (BUFS - 1)];
  b->addr = (uint64_t)(uintptr_t)(buf_base + (size_t)bid * BUF_SIZE);
  b->len = BUF_SIZE;
  b->bid = bid;
  br_tail++;
  atomic_store_explicit((_Atomic unsigned short *)&br->tail, br_tail, memory_order_release);
}

static int enter(unsigned submit, unsigned wait) {
  for (;;) {
    int r = (int)syscall(__NR_io_uring_enter, ring_fd, submit, wait, wait ? IORING_ENTER_GETEVENTS : 0, NULL, 0);
    if (r >= 0 || errno != EINTR) return r;
  }
}

static struct io_uring_sqe *sqe_get(void) {
  if (to_submit == ENTRIES) { /* the queue is full: hand it to the kernel first */
    atomic_store_explicit((_Atomic unsigned *)sq_tail, sq_local_tail, memory_order_release);
    if (enter(to_submit, 0) < 0) die("io_uring_enter");
    to_submit = 0;
  }
  unsigned idx = sq_local_tail & *sq_mask;
  struct io_uring_sqe *s = &sqes[idx];
  memset(s, 0, sizeof *s);
  sq_array[idx] = idx;
  sq_local_tail++;
  to_submit++;
  return s;
}

static uint64_t tag(struct conn *c, int op) { return (uint64_t)(uintptr_t)c | (uint64_t)op; }

static void arm_accept(int lfd) {
  struct io_uring_sqe *s = sqe_get();
  s->opcode = IORING_OP_ACCEPT;
  s->fd = lfd;
  s->ioprio = IORING_ACCEPT_MULTISHOT;
  s->user_data = OP_ACCEPT;
}

static void arm_recv(struct conn *c) {
  struct io_uring_sqe *s = sqe_get();
  s->opcode = IORING_OP_RECV;
  s->fd = c->fd;
  s->ioprio = IORING_RECV_MULTISHOT;
  s->flags = IOSQE_BUFFER_SELECT;
  s->buf_group = BGID;
  s->user_data = tag(c, OP_RECV);
  c->ops++;
}

/* Sends the filled buffer when no send is in flight; the other buffer takes the answers meanwhile. */
static void maybe_send(struct conn *c) {
  if (c->sending || c->closed) return;
  int i = c->out_len[0] ? 0 : 1;
  if (!c->out_len[i]) return;
  if (i == 1) { /* keep buffer 0 the one in flight */
    char *t = c->out[0];
    c->out[0] = c->out[1];
    c->out[1] = t;
    c->out_len[0] = c->out_len[1];
    c->out_len[1] = 0;
  }
  struct io_uring_sqe *s = sqe_get();
  s->opcode = IORING_OP_SEND;
  s->fd = c->fd;
  s->addr = (uint64_t)(uintptr_t)(c->out[0] + c->sent);
  s->len = (unsigned)(c->out_len[0] - c->sent);
  s->msg_flags = MSG_NOSIGNAL;
  s->user_data = tag(c, OP_SEND);
  c->ops++;
  c->sending = 1;
}

static void conn_close(struct conn *c) {
  if (!c->closed) {
    c->closed = 1;
    /* A pending receive holds the socket open past close(); shutdown ends it (its last completion comes without
     * IORING_CQE_F_MORE) and sends the client its FIN now. */
    shutdown(c->fd, SHUT_RDWR);
    close(c->fd);
  }
  if (c->ops == 0) {
    free(c->out[0]);
    free(c->out[1]);
    free(c);
  }
}

/* Answers every complete head in `data` (after what `c->in` holds of an unfinished one); returns -1 to close. */
static int on_data(struct conn *c, const char *data, size_t len) {
  const char *p = data;
  size_t n = len;
  if (c->in_len) { /* a head split across receives: finish it in the connection's own buffer */
    if (c->in_len + len > IN_CAP) return -1; /* a head larger than 64 KiB: not a benchmark request */
    memcpy(c->in + c->in_len, data, len);
    c->in_len += len;
    p = c->in;
    n = c->in_len;
  }
  int fill = c->sending ? 1 : 0;
  size_t pos = 0;
  for (;;) {
    char *blank = memmem(p + pos, n - pos, "\r\n\r\n", 4);
    if (!blank) break;
    size_t head_len = (size_t)(blank - (p + pos)) + 4;
    const char *resp;
    size_t resp_len;
    answer(p + pos, head_len, &resp, &resp_len);
    if (c->out_len[fill] + resp_len > OUT_CAP) return -1; /* the client reads nothing: give up on it */
    memcpy(c->out[fill] + c->out_len[fill], resp, resp_len);
    c->out_len[fill] += resp_len;
    pos += head_len;
  }
  size_t rest = n - pos;
  if (rest > IN_CAP) return -1;
  if (p == c->in) memmove(c->in, c->in + pos, rest);
  else memcpy(c->in, p + pos, rest);
  c->in_len = rest;
  maybe_send(c);
  return 0;
}

int main(int argc, char **argv) {
  int lfd = start(argc, argv, "limit-uring", 0);
  int one = 1;
  ring_init();
  arm_accept(lfd);
  for (;;) {
    atomic_store_explicit((_Atomic unsigned *)sq_tail, sq_local_tail, memory_order_release);
    if (enter(to_submit, 1) < 0) die("io_uring_enter");
    to_submit = 0;
    unsigned head = *cq_head;
    unsigned tail = atomic_load_explicit((_Atomic unsigned *)cq_tail, memory_order_acquire);
    for (; head != tail; head++) {
      struct io_uring_cqe *e = &cqes[head & *cq_mask];
      uint64_t ud = e->user_data;
      int res = e->res;
      unsigned flags = e->flags;
      int op = (int)(ud & 7);
      struct conn *c = (struct conn *)(uintptr_t)(ud & ~(uint64_t)7);
      if (op == OP_ACCEPT) {
        if (res >= 0) {
          setsockopt(res, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
          struct conn *nc = calloc(1, sizeof *nc);
          if (nc) {
            nc->out[0] = malloc(OUT_CAP);
            nc->out[1] = malloc(OUT_CAP);
          }
          if (!nc || !nc->out[0] || !nc->out[1]) {
            close(res);
            if (nc) {
              free(nc->out[0]);
              free(nc->out[1]);
              free(nc);
            }
          } else {
            nc->fd = res;
            arm_recv(nc);
          }
        }
        if (!(flags & IORING_CQE_F_MORE)) arm_accept(lfd);
      } else if (op == OP_RECV) {
        int more = (flags & IORING_CQE_F_MORE) != 0;
        if (!more) c->ops--;
        if (res > 0) {
          unsigned short bid = (unsigned short)(flags >> IORING_CQE_BUFFER_SHIFT);
          int bad = c->closed || on_data(c, buf_base + (size_t)bid * BUF_SIZE, (size_t)res) < 0;
          buf_return(bid);
          if (bad) conn_close(c);
          else if (!more) arm_recv(c); /* the multishot receive ended (no buffer was free): start another */
        } else if (res == -ENOBUFS && !c->closed) {
          arm_recv(c);
        } else {
          conn_close(c); /* end of stream, an error, or the close above ending the receive */
        }
      } else if (op == OP_SEND) {
        c->ops--;
        c->sending = 0;
        if (res < 0 || c->closed) {
          conn_close(c);
          continue;
        }
        c->sent += (size_t)res;
        if (c->sent == c->out_len[0]) {
          c->sent = 0;
          c->out_len[0] = 0;
        }
        maybe_send(c);
      }
    }
    atomic_store_explicit((_Atomic unsigned *)cq_head, head, memory_order_release);
  }
}
