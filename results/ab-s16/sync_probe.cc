#include <fcntl.h>
#include <unistd.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>
#include <algorithm>
#include <cstring>
// st NTHREADS SAMEFILE(0/1) BYTES SECONDS
int main(int argc, char** argv) {
  int n = atoi(argv[1]); bool same = atoi(argv[2]); size_t bytes = atol(argv[3]); double secs = atof(argv[4]);
  const size_t fsize = 64 << 20;
  std::vector<int> fds;
  for (int i = 0; i < (same ? 1 : n); ++i) {
    char name[64]; snprintf(name, sizeof name, "/var/tmp/st-%d", i);
    int fd = open(name, O_RDWR | O_CREAT, 0644);
    std::vector<char> z(1 << 20, 0);
    for (size_t o = 0; o < fsize; o += z.size()) pwrite(fd, z.data(), z.size(), o);
    fdatasync(fd);
    fds.push_back(fd);
  }
  std::vector<std::vector<double>> lat(n);
  auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(secs);
  std::vector<std::thread> ts;
  for (int t = 0; t < n; ++t) ts.emplace_back([&, t] {
    int fd = fds[same ? 0 : t];
    std::vector<char> buf(bytes, 'x');
    size_t off = same ? (fsize / n) * t : 0, base = off;
    while (std::chrono::steady_clock::now() < end) {
      auto s = std::chrono::steady_clock::now();
      pwrite(fd, buf.data(), bytes, off);
      fdatasync(fd);
      lat[t].push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - s).count());
      off += bytes; if (off + bytes > base + fsize / (same ? n : 1)) off = base;
    }
  });
  for (auto& t : ts) t.join();
  std::vector<double> all; for (auto& l : lat) all.insert(all.end(), l.begin(), l.end());
  std::sort(all.begin(), all.end());
  printf("threads %d same %d bytes %zu: %.0f syncs/s p50 %.0f p90 %.0f p99 %.0f us\n", n, same, bytes,
         all.size() / secs, all[all.size() / 2], all[all.size() * 9 / 10], all[all.size() * 99 / 100]);
}
