/*
 * What an fdatasync costs after a small write, depending on where the write lands. Not part of the build:
 * a measurement behind docs/raftlog.md ("Workarounds for engine-core"), which Java cannot make alone
 * (it has no fallocate).
 *
 *   gcc -O2 -o /tmp/fsync-cost engine-raftlog/bench/fsync-cost.c
 *   /tmp/fsync-cost DIR ROUNDS BYTES        e.g. /tmp/fsync-cost jmh/target/bench-data 21 5000
 *
 * Four files in DIR, one per mode; each round does 100 write+fdatasync pairs of BYTES in each mode in turn,
 * so the modes share the machine's conditions. Prints the median and minimum over rounds of the time per pair.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MODES 4
#define PER_ROUND 100

static double micros(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s DIR ROUNDS BYTES\n", argv[0]);
        return 2;
    }
    const char *dir = argv[1];
    int rounds = atoi(argv[2]);
    int bytes = atoi(argv[3]);
    static char data[1 << 16];
    if (rounds < 1 || bytes < 1 || bytes > (int) sizeof data) {
        fprintf(stderr, "ROUNDS >= 1, BYTES in [1, %zu]\n", sizeof data);
        return 2;
    }
    memset(data, 7, sizeof data);
    const char *names[MODES] = {"append", "fallocate-keep-size", "fallocate", "overwrite-written"};
    char paths[MODES][4096];
    int fd[MODES];
    long total = (long) rounds * PER_ROUND * bytes + (1 << 20);
    for (int m = 0; m < MODES; m++) {
        snprintf(paths[m], sizeof paths[m], "%s/fsync-cost-%d.dat", dir, m);
        unlink(paths[m]);
        fd[m] = open(paths[m], O_CREAT | O_WRONLY, 0644);
        if (fd[m] < 0) {
            perror(paths[m]);
            return 1;
        }
    }
    /* RocksDB's WAL: blocks allocated, size unchanged. */
    if (fallocate(fd[1], FALLOC_FL_KEEP_SIZE, 0, total) != 0 || fallocate(fd[2], 0, 0, total) != 0) {
        perror("fallocate");
        return 1;
    }
    /* A recycled file: every block already written once. */
    static char zeros[1 << 16];
    for (long w = 0; w < total; w += sizeof zeros) {
        if (write(fd[3], zeros, sizeof zeros) != (ssize_t) sizeof zeros) {
            perror("write");
            return 1;
        }
    }
    for (int m = 0; m < MODES; m++) {
        fsync(fd[m]);
        lseek(fd[m], 0, SEEK_SET);
    }
    double *per_pair[MODES];
    for (int m = 0; m < MODES; m++) {
        per_pair[m] = malloc(sizeof(double) * rounds);
    }
    for (int r = 0; r < rounds; r++) {
        for (int m = 0; m < MODES; m++) {
            double start = micros();
            for (int i = 0; i < PER_ROUND; i++) {
                if (write(fd[m], data, bytes) != bytes || fdatasync(fd[m]) != 0) {
                    perror(names[m]);
                    return 1;
                }
            }
            per_pair[m][r] = (micros() - start) / PER_ROUND;
        }
    }
    for (int m = 0; m < MODES; m++) {
        qsort(per_pair[m], rounds, sizeof(double), by_value);
        printf("%-20s median %6.0f us  min %6.0f us\n", names[m], per_pair[m][rounds / 2], per_pair[m][0]);
        close(fd[m]);
        unlink(paths[m]);
    }
    return 0;
}
