// Reading and writing Verilator ports of any width: fields of a value (CData .. QData,
// or VlWide<W> for ports wider than 64 bits) and whole ports from 32-bit words (least
// significant first). Include after "verilated.h".
#pragma once
#include <cstddef>
#include <cstdint>

static inline uint64_t field(uint64_t v, int lo, int width) {
    return (v >> lo) & ((width >= 64) ? ~0ULL : ((1ULL << width) - 1));
}
template <typename T> static inline uint64_t bits_of(const T& v, int lo, int width) {
    return field((uint64_t)v, lo, width);
}
template <std::size_t W> static inline uint64_t bits_of(const VlWide<W>& v, int lo, int width) {
    // width <= 32: the field spans at most two 32-bit words
    const std::size_t word = lo >> 5, shift = lo & 31;
    uint64_t x = (uint64_t)v[word] >> shift;
    if (word + 1 < W) x |= (uint64_t)v[word + 1] << (32 - shift);
    return field(x, 0, width);
}

// (a port of up to 64 bits takes two words)
static inline void set_words(CData& port, const uint32_t* w) { port = w[0]; }
static inline void set_words(SData& port, const uint32_t* w) { port = w[0]; }
static inline void set_words(IData& port, const uint32_t* w) { port = w[0]; }
static inline void set_words(QData& port, const uint32_t* w) { port = (QData)w[0] | ((QData)w[1] << 32); }
template <std::size_t W> static inline void set_words(VlWide<W>& port, const uint32_t* w) {
    for (std::size_t i = 0; i < W; ++i) port[i] = w[i];
}

// whole ports into 32-bit words (at least two, the upper ones 0 for narrow ports)
static inline void get_words(const CData& port, uint32_t* w) { w[0] = port; w[1] = 0; }
static inline void get_words(const SData& port, uint32_t* w) { w[0] = port; w[1] = 0; }
static inline void get_words(const IData& port, uint32_t* w) { w[0] = port; w[1] = 0; }
static inline void get_words(const QData& port, uint32_t* w) {
    w[0] = (uint32_t)port;
    w[1] = (uint32_t)(port >> 32);
}
template <std::size_t W> static inline void get_words(const VlWide<W>& port, uint32_t* w) {
    for (std::size_t i = 0; i < W; ++i) w[i] = port[i];
}
