/* fuzz/replay_main.c - a main() for the libFuzzer harnesses without libFuzzer: runs each file (or each
 * file of each directory) given on the command line through LLVMFuzzerTestOneInput once. The C test
 * suite uses it to replay the committed seed corpus with any compiler, under sanitizers too, so the
 * corpus is a regression test even where clang's libFuzzer is missing. */
/* opendir and stat under -std=c11 */
#define _DEFAULT_SOURCE 1

#include <dirent.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    fprintf(stderr, "replay: cannot open %s\n", path);
    return -1;
  }
  uint8_t *buf = NULL;
  size_t len = 0, cap = 0;
  for (;;) {
    if (len == cap) {
      size_t ncap = cap ? 2 * cap : 4096;
      uint8_t *nbuf = (uint8_t *)realloc(buf, ncap);
      if (nbuf == NULL) {
        free(buf);
        fclose(f);
        return -1;
      }
      buf = nbuf;
      cap = ncap;
    }
    size_t got = fread(buf + len, 1, cap - len, f);
    len += got;
    if (got == 0) break;
  }
  fclose(f);
  /* An exactly-sized copy, so ASan sees a read past the input as libFuzzer would. */
  uint8_t *exact = (uint8_t *)malloc(len ? len : 1);
  if (exact == NULL) {
    free(buf);
    return -1;
  }
  if (len) memcpy(exact, buf, len);
  free(buf);
  LLVMFuzzerTestOneInput(exact, len);
  free(exact);
  return 0;
}

int main(int argc, char **argv) {
  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
  int files = 0, errors = 0;
  for (int i = 1; i < argc; ++i) {
    struct stat st;
    if (stat(argv[i], &st) != 0) {
      fprintf(stderr, "replay: no such file or directory: %s\n", argv[i]);
      ++errors;
      continue;
    }
    if (!S_ISDIR(st.st_mode)) {
      errors += run_file(argv[i]) != 0;
      ++files;
      continue;
    }
    DIR *d = opendir(argv[i]);
    if (d == NULL) {
      ++errors;
      continue;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
      if (e->d_name[0] == '.') continue;
      char path[4096];
      snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
      if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) continue;
      errors += run_file(path) != 0;
      ++files;
    }
    closedir(d);
  }
  printf("replayed %d input(s), %d error(s)\n", files, errors);
  return errors == 0 && files > 0 ? 0 : 1;
}
