#pragma once
// MG_ASAN is 1 when AddressSanitizer instruments this translation unit. Code that recycles memory itself
// (the node pool, huge-page buffers) steps aside then, so that ASan still sees every access.
#if defined(__SANITIZE_ADDRESS__)
#define MG_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MG_ASAN 1
#endif
#endif
#ifndef MG_ASAN
#define MG_ASAN 0
#endif
