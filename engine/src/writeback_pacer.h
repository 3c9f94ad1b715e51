// WritebackPacer: keeps the dirty data of a large sequential write small, so
// that its final sync() is not one burst that queues the log's fdatasync
// behind it (issue 6; engine/README.md "Checkpoint I/O").
//
// The writer calls wrote_up_to(end) after each write_at(); for every full
// chunk of `chunk_bytes` it starts that chunk's writeback and waits until
// the chunk before it is written (File::write_back). So at most two chunks
// (two writes, if a write is larger) are dirty or in the device's queue at
// a time, and the writer goes no faster than the device. Not a durability
// point: the file still needs sync() (which then finds at most ~2 chunks
// to write).
//
// Used by one thread at a time, with one File.
#pragma once

#include <cstdint>

#include "solo/file_system.h"

namespace solo::internal {

class WritebackPacer {
 public:
  // chunk_bytes 0: does nothing (all data is left for the final sync()).
  WritebackPacer(File* file, uint64_t chunk_bytes) : file_(file), chunk_bytes_(chunk_bytes) {}
  WritebackPacer(const WritebackPacer&) = delete;
  WritebackPacer& operator=(const WritebackPacer&) = delete;

  // Bytes [0, end) of the file have been written. Returns the write_back()
  // error, if any (fatal for the file's writer, like a failed sync()).
  Status wrote_up_to(uint64_t end);
  // Time spent waiting for the device so far, in ns.
  uint64_t wait_ns() const { return wait_ns_; }

 private:
  File* const file_;
  const uint64_t chunk_bytes_;
  uint64_t started_ = 0;  // writeback started for [0, started_)
  uint64_t waited_ = 0;   // written to the device: [0, waited_)
  uint64_t wait_ns_ = 0;
};

}  // namespace solo::internal
