#pragma once
// The disk cache for compiled kernels (tinygrad's diskcache_get/diskcache_put): one file per key under
// $MG_CACHE_DIR, else $XDG_CACHE_HOME/metagrad, else $HOME/.cache/metagrad, in a folder per table.
// A file is a header (magic, lengths, a checksum of key and payload), the key, then the payload; a file
// that is missing, truncated, corrupt or written for another key reads as a miss and the next put
// overwrites it. Puts write a temp file and rename it, so concurrent processes never see half a file.
// CACHELEVEL=0 turns the cache off. An unwritable folder means no cache, never an error.
// C stdio and POSIX only: <filesystem> and <fstream> would cost every includer compile time.
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include "../core/env.hpp"

namespace mg {

namespace detail {

// A 64-bit hash with two independent lanes (murmur-style multiply/rotate mixing), so the pair is a
// 128-bit fingerprint: cache keys collide only by accident, never by a short source's pattern.
struct Hash128 {
  std::uint64_t lo = 0, hi = 0;
};

template <class = void> std::uint64_t rotl64(std::uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
template <class = void> std::uint64_t fmix64(std::uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ULL;
  return k ^ (k >> 33);
}

template <class = void> Hash128 hash128(std::string_view s, std::uint64_t seed = 0) {
  constexpr std::uint64_t c1 = 0x87c37b91114253d5ULL, c2 = 0x4cf5ad432745937fULL;
  std::uint64_t h1 = seed, h2 = seed ^ 0x9e3779b97f4a7c15ULL;
  const char* p = s.data();
  const std::size_t n = s.size(), blocks = n / 16;
  auto word = [](const char* q) {
    std::uint64_t w;
    std::memcpy(&w, q, 8);
    return w;
  };
  for (std::size_t i = 0; i < blocks; ++i, p += 16) {
    std::uint64_t k1 = word(p), k2 = word(p + 8);
    h1 ^= rotl64(k1 * c1, 31) * c2;
    h1 = (rotl64(h1, 27) + h2) * 5 + 0x52dce729;
    h2 ^= rotl64(k2 * c2, 33) * c1;
    h2 = (rotl64(h2, 31) + h1) * 5 + 0x38495ab5;
  }
  // the tail, zero padded; the length goes into the final mix so padding cannot alias
  char tail[16] = {};
  std::memcpy(tail, p, n - blocks * 16);
  h1 ^= rotl64(word(tail) * c1, 31) * c2;
  h2 ^= rotl64(word(tail + 8) * c2, 33) * c1;
  h1 ^= n;
  h2 ^= n;
  h1 += h2;
  h2 += h1;
  h1 = fmix64(h1);
  h2 = fmix64(h2);
  h1 += h2;
  h2 += h1;
  return {h1, h2};
}

// 32 lowercase hex digits: the key the runtimes use for a source
template <class = void> std::string hash_hex(std::string_view s) {
  const Hash128 h = hash128(s);
  static constexpr char digits[] = "0123456789abcdef";
  std::string out(32, '0');
  for (int i = 0; i < 16; ++i) {
    out[std::size_t(15 - i)] = digits[(h.hi >> (4 * i)) & 15];
    out[std::size_t(31 - i)] = digits[(h.lo >> (4 * i)) & 15];
  }
  return out;
}

// CACHELEVEL as in tinygrad: unset means 2 (on); 0 disables the disk cache
template <class = void> bool disk_cache_enabled() { return getenv_int("CACHELEVEL", 2) != 0; }

template <class = void> std::string disk_cache_dir() {
  if (const char* d = std::getenv("MG_CACHE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/metagrad";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/metagrad";
  return {};
}

template <class = void> bool safe_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}
// a file name for the key: the key itself when it is short and plain, else its hash (the header keeps
// the full key, so a hashed name that collides still reads as a miss)
template <class = void> std::string disk_cache_file_name(std::string_view s) {
  if (s.empty() || s.size() > 64) return hash_hex(s);
  for (char c : s)
    if (!safe_name_char(c)) return hash_hex(s);
  return std::string(s);
}

template <class = void> std::string disk_cache_path(std::string_view table, std::string_view key) {
  std::string dir = disk_cache_dir();
  if (dir.empty()) return {};
  return dir + "/" + disk_cache_file_name(table) + "/" + disk_cache_file_name(key);
}

// mkdir -p; true when the folder exists afterwards
template <class = void> bool make_dirs(const std::string& path) {
  for (std::size_t i = 1; i <= path.size(); ++i) {
    if (i < path.size() && path[i] != '/') continue;
    const std::string part = path.substr(0, i);
    if (::mkdir(part.c_str(), 0755) != 0 && errno != EEXIST) return false;
  }
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

inline constexpr char disk_cache_magic[8] = {'M', 'G', 'C', 'A', 'C', 'H', 'E', '1'};
struct DiskCacheHeader {
  char magic[8];
  std::uint64_t key_len, payload_len, checksum_lo, checksum_hi;
};

template <class = void> Hash128 disk_cache_checksum(std::string_view key, std::string_view payload) {
  const Hash128 k = hash128(key);
  return hash128(payload, k.lo ^ k.hi);
}

struct FileCloser {
  std::FILE* f;
  ~FileCloser() {
    if (f) std::fclose(f);
  }
};

}  // namespace detail

// The payload stored for (table, key), or nullopt when there is none that is whole and correct.
template <class = void> std::optional<std::string> disk_cache_get(std::string_view table, std::string_view key) {
  if (!detail::disk_cache_enabled()) return std::nullopt;
  const std::string path = detail::disk_cache_path(table, key);
  if (path.empty()) return std::nullopt;
  detail::FileCloser fc{std::fopen(path.c_str(), "rb")};
  if (!fc.f) return std::nullopt;
  struct stat st;
  if (::fstat(::fileno(fc.f), &st) != 0) return std::nullopt;
  const auto size = std::uint64_t(st.st_size);
  detail::DiskCacheHeader h;
  if (size < sizeof h || std::fread(&h, sizeof h, 1, fc.f) != 1) return std::nullopt;
  if (std::memcmp(h.magic, detail::disk_cache_magic, sizeof h.magic) != 0) return std::nullopt;
  // lengths are checked against the file size before anything is allocated for them
  if (h.key_len != key.size() || h.key_len > size - sizeof h || h.payload_len != size - sizeof h - h.key_len)
    return std::nullopt;
  std::string stored_key(key.size(), '\0'), payload(std::size_t(h.payload_len), '\0');
  if (!stored_key.empty() && std::fread(stored_key.data(), stored_key.size(), 1, fc.f) != 1) return std::nullopt;
  if (stored_key != key) return std::nullopt;
  if (!payload.empty() && std::fread(payload.data(), payload.size(), 1, fc.f) != 1) return std::nullopt;
  const detail::Hash128 c = detail::disk_cache_checksum(key, payload);
  if (c.lo != h.checksum_lo || c.hi != h.checksum_hi) return std::nullopt;
  return payload;
}

// Stores payload for (table, key); returns whether it was written (false when the cache is off or the
// folder is unwritable: callers just carry on without the cache).
template <class = void> bool disk_cache_put(std::string_view table, std::string_view key, std::string_view payload) {
  if (!detail::disk_cache_enabled()) return false;
  const std::string path = detail::disk_cache_path(table, key);
  if (path.empty() || !detail::make_dirs(path.substr(0, path.rfind('/')))) return false;
  // unique per process and call, so concurrent writers never share a temp file
  static std::atomic<unsigned long> counter{0};
  const std::string tmp = path + ".tmp." + std::to_string(long(::getpid())) + "." + std::to_string(counter++);
  const detail::Hash128 c = detail::disk_cache_checksum(key, payload);
  detail::DiskCacheHeader h;
  std::memcpy(h.magic, detail::disk_cache_magic, sizeof h.magic);
  h.key_len = key.size();
  h.payload_len = payload.size();
  h.checksum_lo = c.lo;
  h.checksum_hi = c.hi;
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) return false;
  bool ok = std::fwrite(&h, sizeof h, 1, f) == 1;
  ok = ok && (key.empty() || std::fwrite(key.data(), key.size(), 1, f) == 1);
  ok = ok && (payload.empty() || std::fwrite(payload.data(), payload.size(), 1, f) == 1);
  ok = (std::fclose(f) == 0) && ok;
  ok = ok && std::rename(tmp.c_str(), path.c_str()) == 0;
  if (!ok) std::remove(tmp.c_str());
  return ok;
}

}  // namespace mg
