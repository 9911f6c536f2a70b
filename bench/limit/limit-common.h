/* What both limit responders share (limit.c on epoll, limit-uring.c on io_uring): the responses file they load and
 * the answer they pick for a request head by the path in its request line. Included by each; no HTTP beyond that. */
#ifndef LIMIT_COMMON_H
#define LIMIT_COMMON_H
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#define MAX_ROUTES 64
#define IN_CAP 65536
#define OUT_CAP (1 << 20)

struct route { char path[256]; size_t path_len; char *resp; size_t resp_len; };
static struct route routes[MAX_ROUTES];
static int nroutes;
static const char not_found[] = "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n";

static void die(const char *what) { perror(what); exit(1); }

static void load(const char *file) {
  FILE *f = fopen(file, "rb");
  if (!f) die(file);
  char path[256];
  size_t len;
  while (nroutes < MAX_ROUTES && fscanf(f, "%255s %zu", path, &len) == 2) {
    if (fgetc(f) != '\n') break;
    struct route *r = &routes[nroutes++];
    r->path_len = strlen(path);
    memcpy(r->path, path, r->path_len + 1);
    r->resp = malloc(len);
    r->resp_len = len;
    if (!r->resp || fread(r->resp, 1, len, f) != len) die("responses file");
  }
  fclose(f);
}

/* The response for the request head starting at `head`: the path is between the first two spaces. */
static void answer(const char *head, size_t len, const char **resp, size_t *resp_len) {
  const char *sp = memchr(head, ' ', len);
  if (sp) {
    const char *start = sp + 1;
    const char *end = memchr(start, ' ', len - (size_t)(start - head));
    if (end) {
      size_t n = (size_t)(end - start);
      for (int i = 0; i < nroutes; i++) {
        if (routes[i].path_len == n && memcmp(routes[i].path, start, n) == 0) {
          *resp = routes[i].resp;
          *resp_len = routes[i].resp_len;
          return;
        }
      }
    }
  }
  *resp = not_found;
  *resp_len = sizeof not_found - 1;
}

/* Checks the arguments, loads the responses and returns a socket listening on 127.0.0.1:<port>. */
static int start(int argc, char **argv, const char *name, int sock_flags) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s <port> <responses-file>\n", name);
    exit(2);
  }
  signal(SIGPIPE, SIG_IGN);
  load(argv[2]);
  int lfd = socket(AF_INET, SOCK_STREAM | sock_flags, 0);
  if (lfd < 0) die("socket");
  int one = 1;
  setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[1])),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  if (bind(lfd, (struct sockaddr *)&addr, sizeof addr) < 0) die("bind");
  if (listen(lfd, 4096) < 0) die("listen");
  return lfd;
}

#endif
