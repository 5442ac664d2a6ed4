// Ray packets in AVX-512 lanes (avx512_packet: sixteen rays per
// instruction) and in AVX2 lanes (avx2_packet: eight), for x86-64 hosts
// whose CPU has them (chosen at run time; see trace_isa in
// raytrace/trace_options.hpp). Part of the host packet backend
// (host/packet_backend.hpp); walk_packet walks the binary BVH with either
// exactly as with the baseline packet, and every one gives single rays'
// results bit for bit. One body (host/packet_simd_body.hpp) over each
// level's vector operations (host/packet_lanes.hpp).
#pragma once

#include <sweep/host/isa.hpp>
#include <sweep/host/packet_lanes.hpp>
#include <sweep/raytrace/packet.hpp>

#if SWEEP_HOST_MULTI

#define SWEEP_PACKET_NAME avx512_packet
#define SWEEP_PACKET_LANES avx512_lanes
#define SWEEP_PACKET_FN SWEEP_HOST_AVX512_FN
#include <sweep/host/packet_simd_body.hpp>
#undef SWEEP_PACKET_NAME
#undef SWEEP_PACKET_LANES
#undef SWEEP_PACKET_FN

#define SWEEP_PACKET_NAME avx2_packet
#define SWEEP_PACKET_LANES avx2_lanes
#define SWEEP_PACKET_FN SWEEP_HOST_AVX2_FN
#include <sweep/host/packet_simd_body.hpp>
#undef SWEEP_PACKET_NAME
#undef SWEEP_PACKET_LANES
#undef SWEEP_PACKET_FN

#endif
