#pragma once
// The CPU device's own object loader: links an ELF relocatable object for x86-64 (what
// mg::llvm::compile makes) into the process by hand, as tinygrad's CPU device does with its
// elf_loader/jit_loader. It needs no libLLVM, so a kernel found in the disk cache runs without
// loading the compiler at all.
//   mg::detail::elf::link(object, failure) -> an Image, or nothing and why (and whether ORC might do)
//   image.symbol(name)                   -> the address of a defined symbol, or nullptr
// Sections that are allocated (code, constants, data) are laid out in one mapping, so every
// PC-relative reference between them is in range; calls to the process's functions (libm's exp2f,
// memset, ...) go through a jump stub when the function is further than 2 GiB away, and GOT-relative
// loads get a slot of their own. Code and constants are made read-only and executable once relocated;
// writable sections stay writable. Every offset, size and index read from the object is checked against
// the object's bounds before use. A well-formed object that uses something this loader does not
// implement (another machine, REL relocations, TLS, constructors, an unknown relocation type) is
// reported as unsupported, and the caller links it with ORC instead (runtime/llvm.hpp).
#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mg::detail::elf {

// the ELF-64 records this loader reads (the System V gABI's Elf64_Ehdr, _Shdr, _Sym, _Rela; <elf.h>'s
// macros are not pulled into every program that includes metagrad)
struct Ehdr {
  unsigned char ident[16];
  std::uint16_t type, machine;
  std::uint32_t version;
  std::uint64_t entry, phoff, shoff;
  std::uint32_t flags;
  std::uint16_t ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
};
struct Shdr {
  std::uint32_t name, type;
  std::uint64_t flags, addr, offset, size;
  std::uint32_t link, info;
  std::uint64_t addralign, entsize;
};
struct Sym {
  std::uint32_t name;
  unsigned char info, other;
  std::uint16_t shndx;
  std::uint64_t value, size;
};
struct Rela {
  std::uint64_t offset, info;
  std::int64_t addend;
};
static_assert(sizeof(Ehdr) == 64 && sizeof(Shdr) == 64 && sizeof(Sym) == 24 && sizeof(Rela) == 24);

inline constexpr std::uint32_t sht_progbits = 1, sht_symtab = 2, sht_strtab = 3, sht_rela = 4, sht_nobits = 8, sht_rel = 9;
inline constexpr std::uint64_t shf_write = 1, shf_alloc = 2, shf_tls = 0x400;
inline constexpr std::uint16_t shn_undef = 0, shn_loreserve = 0xff00, shn_abs = 0xfff1, shn_common = 0xfff2;
inline constexpr unsigned char stb_weak = 2, stt_tls = 6;
// x86-64 psABI relocation types
enum Reloc : std::uint32_t {
  r_none = 0, r_64 = 1, r_pc32 = 2, r_plt32 = 4, r_gotpcrel = 9, r_32 = 10, r_32s = 11, r_pc64 = 24,
  r_gotpcrelx = 41, r_rex_gotpcrelx = 42,
};

// A linked object: one private mapping, unmapped when the Image goes.
class Image {
 public:
  Image() = default;
  Image(Image&& o) noexcept { *this = std::move(o); }
  Image& operator=(Image&& o) noexcept {
    if (this != &o) {
      unmap();
      base_ = o.base_, size_ = o.size_, symbols_ = std::move(o.symbols_);
      o.base_ = nullptr, o.size_ = 0;
    }
    return *this;
  }
  Image(const Image&) = delete;
  Image& operator=(const Image&) = delete;
  ~Image() { unmap(); }

  // the address of the global or weak symbol `name` the object defines, or nullptr
  void* symbol(std::string_view name) const {
    for (const auto& [n, addr] : symbols_)
      if (n == name) return reinterpret_cast<void*>(addr);
    return nullptr;
  }
  std::size_t symbol_count() const { return symbols_.size(); }
  std::size_t mapped_bytes() const { return size_; }

 private:
  template <class>
  friend struct Linker;
  void unmap() {
    if (base_) ::munmap(base_, size_);
    base_ = nullptr;
  }
  void* base_ = nullptr;
  std::size_t size_ = 0;
  std::vector<std::pair<std::string, std::uintptr_t>> symbols_;
};

// Why link() gave no Image: `unsupported` means a well-formed object this loader does not handle (the
// caller may link it another way); otherwise the object is malformed or needs a symbol the process lacks.
struct Failure {
  std::string why;
  bool unsupported = false;
};

template <class = void>
struct Linker {
  std::string_view obj;
  std::uintptr_t place_hint = 0;
  Failure fail;
  std::vector<Shdr> sh;                  // copied: the object's bytes need not be aligned
  std::vector<std::uintptr_t> sec_addr;  // where each loaded section lives (0: not loaded)
  std::vector<Sym> syms;
  std::string_view strtab;

  // what a failing step returns: an empty optional of whatever it returns
  struct Stop {
    template <class T>
    operator std::optional<T>() const {
      return std::nullopt;
    }
  };
  Stop bad(std::string why) {
    fail = {std::move(why), false};
    return {};
  }
  Stop unsupported(std::string why) {
    fail = {std::move(why), true};
    return {};
  }
  bool in_bounds(std::uint64_t off, std::uint64_t len) const { return off <= obj.size() && len <= obj.size() - off; }
  template <class T>
  std::vector<T> read_array(std::uint64_t off, std::uint64_t count) const {
    std::vector<T> v(count);
    if (count) std::memcpy(v.data(), obj.data() + off, count * sizeof(T));
    return v;
  }
  // a NUL-terminated name at `off` in `tab`
  std::optional<std::string_view> name_at(std::string_view tab, std::uint64_t off) const {
    if (off >= tab.size()) return std::nullopt;
    const std::size_t end = tab.find('\0', off);
    if (end == std::string_view::npos) return std::nullopt;
    return tab.substr(off, end - off);
  }
  static bool loaded_kind(const Shdr& s) { return (s.flags & shf_alloc) && s.size > 0; }

  std::optional<bool> read_headers() {
    Ehdr h;
    if (obj.size() < sizeof h) return bad("not an ELF object: " + std::to_string(obj.size()) + " bytes");
    std::memcpy(&h, obj.data(), sizeof h);
    if (std::memcmp(h.ident, "\x7f" "ELF", 4) != 0) return bad("not an ELF object (no ELF magic)");
    if (h.ident[4] != 2 || h.ident[5] != 1) return unsupported("not a little-endian 64-bit ELF object");
    if (h.type != 1) return unsupported("ELF type " + std::to_string(h.type) + " is not a relocatable object");
    if (h.machine != 62) return unsupported("ELF machine " + std::to_string(h.machine) + " is not x86-64");
    if (h.shentsize != sizeof(Shdr) || h.shnum == 0 || h.shnum >= shn_loreserve)
      return bad("section header table: entry size " + std::to_string(h.shentsize) + ", " + std::to_string(h.shnum) + " entries");
    if (!in_bounds(h.shoff, std::uint64_t(h.shnum) * sizeof(Shdr))) return bad("section headers past the end of the object");
    sh = read_array<Shdr>(h.shoff, h.shnum);
    for (std::size_t i = 0; i < sh.size(); ++i) {
      const Shdr& s = sh[i];
      if (s.type != sht_nobits && s.type != 0 && !in_bounds(s.offset, s.size))
        return bad("section " + std::to_string(i) + " lies past the end of the object");
      if (s.addralign > 4096 || (s.addralign & (s.addralign - 1)))
        return unsupported("section " + std::to_string(i) + " alignment " + std::to_string(s.addralign));
      if (loaded_kind(s)) {
        if (s.flags & shf_tls) return unsupported("thread-local section " + std::to_string(i));
        if (s.type != sht_progbits && s.type != sht_nobits)
          return unsupported("allocated section " + std::to_string(i) + " of type " + std::to_string(s.type));
        if (s.size > (std::uint64_t(1) << 30)) return bad("section " + std::to_string(i) + " of " + std::to_string(s.size) + " bytes");
      }
      if (s.type == sht_rel) return unsupported("REL relocations (section " + std::to_string(i) + ")");
    }
    std::size_t symtabs = 0;
    for (const Shdr& s : sh) {
      if (s.type != sht_symtab) continue;
      if (++symtabs > 1) return unsupported("more than one symbol table");
      if (s.entsize != sizeof(Sym) || s.size % sizeof(Sym)) return bad("symbol table entry size " + std::to_string(s.entsize));
      if (s.link >= sh.size() || sh[s.link].type != sht_strtab) return bad("symbol table's string table index " + std::to_string(s.link));
      syms = read_array<Sym>(s.offset, s.size / sizeof(Sym));
      strtab = obj.substr(sh[s.link].offset, sh[s.link].size);
    }
    return true;
  }

  // the symbol's address once sections are placed; nullopt (with fail set) when it cannot be had
  std::optional<std::uintptr_t> symbol_address(std::uint32_t index) {
    if (index >= syms.size()) return bad("relocation against symbol " + std::to_string(index) + " of " + std::to_string(syms.size()));
    const Sym& s = syms[index];
    if ((s.info & 0xf) == stt_tls) return unsupported("thread-local symbol");
    if (s.shndx == shn_abs) return std::uintptr_t(s.value);
    if (s.shndx == shn_common) return unsupported("common symbol");
    if (s.shndx >= shn_loreserve) return unsupported("symbol in special section " + std::to_string(s.shndx));
    if (s.shndx != shn_undef) {
      if (s.shndx >= sh.size() || !sec_addr[s.shndx] || s.value > sh[s.shndx].size)
        return bad("symbol " + std::to_string(index) + " points outside its section");
      return sec_addr[s.shndx] + std::uintptr_t(s.value);
    }
    const std::optional<std::string_view> name = name_at(strtab, s.name);
    if (!name || name->empty()) return bad("undefined symbol " + std::to_string(index) + " without a name");
    const std::string n(*name);
    if (void* p = ::dlsym(RTLD_DEFAULT, n.c_str())) return reinterpret_cast<std::uintptr_t>(p);
    if ((s.info >> 4) == stb_weak) return std::uintptr_t(0);
    return bad("undefined symbol " + n + ": the process has no such function");
  }

  std::optional<Image> run() {
    if (!read_headers()) return std::nullopt;
    // which relocations need a GOT slot or may need a jump stub, one per symbol
    std::vector<std::int32_t> got_slot(syms.size(), -1), stub_slot(syms.size(), -1);
    std::size_t gots = 0, stubs = 0;
    std::vector<std::pair<std::size_t, std::vector<Rela>>> relas;  // (target section, its relocations)
    for (std::size_t i = 0; i < sh.size(); ++i) {
      const Shdr& s = sh[i];
      if (s.type != sht_rela) continue;
      if (s.info >= sh.size()) return bad("relocation section " + std::to_string(i) + " targets section " + std::to_string(s.info));
      if (!loaded_kind(sh[s.info])) continue;  // relocations of debug info and other unloaded sections
      if (s.entsize != sizeof(Rela) || s.size % sizeof(Rela)) return bad("relocation entry size " + std::to_string(s.entsize));
      if (syms.empty()) return bad("relocations without a symbol table");
      std::vector<Rela> rs = read_array<Rela>(s.offset, s.size / sizeof(Rela));
      for (const Rela& r : rs) {
        const std::uint64_t sym = r.info >> 32;
        if (sym >= syms.size()) return bad("relocation against symbol " + std::to_string(sym));
        const auto type = std::uint32_t(r.info);
        if ((type == r_gotpcrel || type == r_gotpcrelx || type == r_rex_gotpcrelx) && got_slot[sym] < 0)
          got_slot[sym] = std::int32_t(gots++);
        if (type == r_plt32 && syms[sym].shndx == shn_undef && stub_slot[sym] < 0)
          stub_slot[sym] = std::int32_t(stubs++);
      }
      relas.emplace_back(std::size_t(s.info), std::move(rs));
    }

    // layout: the read-only sections (code, constants), the jump stubs and the GOT, then from a page
    // boundary the writable sections
    const std::size_t page = std::size_t(::sysconf(_SC_PAGESIZE));
    auto align_up = [](std::size_t x, std::size_t a) { return a > 1 ? (x + a - 1) / a * a : x; };
    std::vector<std::size_t> offset(sh.size(), 0);
    std::size_t at = 0;
    auto place = [&](bool writable) {
      for (std::size_t i = 0; i < sh.size(); ++i)
        if (loaded_kind(sh[i]) && bool(sh[i].flags & shf_write) == writable) {
          at = align_up(at, std::size_t(sh[i].addralign));
          offset[i] = at;
          at += std::size_t(sh[i].size);
        }
    };
    place(false);
    const std::size_t stub_at = align_up(at, 16), got_at = stub_at + 16 * stubs;
    const std::size_t ro_size = align_up(got_at + 8 * gots, page);
    at = ro_size;
    place(true);
    const std::size_t total = std::max(align_up(at, page), page);

    Image img;
    void* base = ::mmap(reinterpret_cast<void*>(place_hint), total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) return bad("mapping " + std::to_string(total) + " bytes failed");
    img.base_ = base;
    img.size_ = total;
    auto* mem = static_cast<unsigned char*>(base);
    sec_addr.assign(sh.size(), 0);
    for (std::size_t i = 0; i < sh.size(); ++i)
      if (loaded_kind(sh[i])) {
        sec_addr[i] = reinterpret_cast<std::uintptr_t>(mem + offset[i]);
        if (sh[i].type == sht_progbits) std::memcpy(mem + offset[i], obj.data() + sh[i].offset, std::size_t(sh[i].size));
      }

    auto fits32 = [](std::int64_t v) { return v >= INT32_MIN && v <= INT32_MAX; };
    for (const auto& [target, rs] : relas) {
      const Shdr& t = sh[target];
      for (const Rela& r : rs) {
        const auto type = std::uint32_t(r.info);
        const auto si = std::uint32_t(r.info >> 32);
        const std::size_t width = type == r_64 || type == r_pc64 ? 8 : 4;
        if (type == r_none) continue;
        if (t.type == sht_nobits || r.offset > t.size || width > t.size - r.offset)
          return bad("relocation at " + std::to_string(r.offset) + " outside its section of " + std::to_string(t.size) + " bytes");
        const std::uintptr_t p = sec_addr[target] + std::uintptr_t(r.offset);
        const std::optional<std::uintptr_t> sym = symbol_address(si);
        if (!sym) return std::nullopt;
        const auto s = std::int64_t(*sym), a = r.addend, pi = std::int64_t(p);
        const char* range_error = nullptr;  // set by put32 when a value does not fit
        auto put32 = [&](std::int64_t v, const char* what) {
          if (!fits32(v)) return void(range_error = what);
          const auto w = std::int32_t(v);
          std::memcpy(reinterpret_cast<void*>(p), &w, 4);
        };
        switch (type) {
          case r_64: {
            const std::int64_t v = s + a;
            std::memcpy(reinterpret_cast<void*>(p), &v, 8);
            break;
          }
          case r_pc64: {
            const std::int64_t v = s + a - pi;
            std::memcpy(reinterpret_cast<void*>(p), &v, 8);
            break;
          }
          case r_pc32:
          case r_plt32: {
            std::int64_t target_addr = s;
            if (type == r_plt32 && !fits32(s + a - pi) && stub_slot[si] >= 0) {  // a far function: jmp *0(%rip); .quad s
              unsigned char* stub = mem + stub_at + 16 * std::size_t(stub_slot[si]);
              const unsigned char code[6] = {0xff, 0x25, 0, 0, 0, 0};
              std::memcpy(stub, code, 6);
              std::memcpy(stub + 6, &s, 8);
              target_addr = std::int64_t(reinterpret_cast<std::uintptr_t>(stub));
            }
            put32(target_addr + a - pi, "PC-relative");
            break;
          }
          case r_32:
            if (s + a < 0 || s + a > std::int64_t(UINT32_MAX)) return bad("32-bit absolute relocation out of range");
            put32(std::int64_t(std::int32_t(std::uint32_t(s + a))), "32-bit");
            break;
          case r_32s: put32(s + a, "32-bit signed"); break;
          case r_gotpcrel:
          case r_gotpcrelx:
          case r_rex_gotpcrelx: {
            unsigned char* slot = mem + got_at + 8 * std::size_t(got_slot[si]);
            std::memcpy(slot, &s, 8);
            put32(std::int64_t(reinterpret_cast<std::uintptr_t>(slot)) + a - pi, "GOT-relative");
            break;
          }
          default: return unsupported("relocation type " + std::to_string(type));
        }
        if (range_error)
          return bad(std::string(range_error) + " relocation of type " + std::to_string(type) + " at " +
                     std::to_string(r.offset) + " out of range");
      }
    }

    for (std::size_t i = 0; i < syms.size(); ++i) {
      const Sym& s = syms[i];
      const unsigned bind = s.info >> 4;
      if ((bind != 1 && bind != stb_weak) || s.shndx == shn_undef || s.shndx >= shn_loreserve) continue;
      const std::optional<std::string_view> name = name_at(strtab, s.name);
      if (!name) return bad("symbol " + std::to_string(i) + " has no name in the string table");
      if (s.shndx >= sh.size() || !sec_addr[s.shndx] || s.value > sh[s.shndx].size) continue;  // not loaded
      img.symbols_.emplace_back(std::string(*name), sec_addr[s.shndx] + std::uintptr_t(s.value));
    }
    if (::mprotect(base, ro_size, PROT_READ | PROT_EXEC) != 0) return bad("mprotect of the code failed");
    return img;
  }
};

// Links `object` into the process; on failure returns nothing and says why in `fail`. `place_hint`, when
// not 0, is where the mapping should go if that address is free (the tests map far from the process's
// libraries to exercise the jump stubs).
template <class = void> std::optional<Image> link(std::string_view object, Failure& fail, std::uintptr_t place_hint = 0) {
  Linker<> l;
  l.obj = object;
  l.place_hint = place_hint;
  std::optional<Image> img = l.run();
  if (!img) fail = std::move(l.fail);
  return img;
}

}  // namespace mg::detail::elf
