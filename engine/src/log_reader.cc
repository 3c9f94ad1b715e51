// Log recovery: segment headers, the chain from the checkpoint, the tail.
#include "log_reader.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "crc32c.h"
#include "durable_codec.h"
#include "log_format.h"

namespace solo::internal {

std::string segment_name(uint32_t slot) {
  char name[32];
  std::snprintf(name, sizeof(name), "wal-%06u.log", slot);
  return name;
}

bool parse_segment_name(const std::string& name, uint32_t* slot) {
  if (name.size() != 14 || name.compare(0, 4, "wal-") != 0 || name.compare(10, 4, ".log") != 0) {
    return false;
  }
  uint32_t value = 0;
  for (size_t pos = 4; pos < 10; ++pos) {
    if (name[pos] < '0' || name[pos] > '9') return false;
    value = value * 10 + static_cast<uint32_t>(name[pos] - '0');
  }
  *slot = value;
  return true;
}

namespace {

Status read_file(FileSystem* fs, const std::string& path, std::string* data) {
  auto file = fs->open(path, OpenMode::kRead);
  if (!file.ok()) return file.status();
  auto size = (*file)->size();
  if (!size.ok()) return size.status();
  data->resize(*size);
  size_t read = 0;
  Status status = (*file)->read_at(0, data->size(), data->data(), &read);
  if (!status.ok()) return status;
  data->resize(read);
  return Status::OK();
}

// Frame at `pos` of `data`: true if intact (length in bounds, CRC holds).
bool intact_frame(std::string_view data, uint64_t pos, uint32_t* length, uint64_t* lsn) {
  if (pos + kFrameHeaderBytes > data.size()) return false;
  const char* frame = data.data() + pos;
  *length = load_u32(frame + 4);
  *lsn = load_u64(frame + 8);
  if (*length == 0 || *length > data.size() - pos - kFrameHeaderBytes) return false;
  return load_u32(frame) == crc32c_extend(0, frame + 4, kFrameHeaderBytes - 4 + *length);
}

// True if the frame header at `pos` could start an intact frame: the checks
// that cost nothing next to the CRC. Every frame's payload starts with an
// entry (a round that changed nothing has no frame; padding only grows the
// last frame of a write), and the bytes up to the next 8-byte boundary after
// it are zeros. A false candidate otherwise costs a CRC over its length
// field's worth of bytes, up to the rest of the segment.
bool plausible_frame(std::string_view data, uint64_t pos) {
  const char* frame = data.data() + pos;
  uint32_t length = load_u32(frame + 4);
  if (length == 0 || length > data.size() - pos - kFrameHeaderBytes) return false;
  auto type = static_cast<uint8_t>(frame[kFrameHeaderBytes]);
  if (type < static_cast<uint8_t>(LogEntry::kPut) ||
      type > kLastLogEntry) {
    return false;
  }
  uint64_t end = pos + kFrameHeaderBytes + length;
  for (uint64_t pad = end; pad < align_frame(end) && pad < data.size(); ++pad) {
    if (data[pad] != 0) return false;
  }
  return true;
}

// The first offset >= from (8-byte steps) holding an intact frame with an
// LSN >= min_lsn, or 0 if none: evidence of acknowledged rounds after damage.
// The CRC is computed only for a plausible header: LSN in [min_lsn, max_lsn],
// plausible_frame(). After the chain of a segment with a valid header broke
// at `chain_end` (the frame of LSN <= min_lsn belonged there), a newer frame
// X at pos was written after the frames min_lsn .. X-1 of the same segment,
// each >= kMinFrameBytes, all in [chain_end, pos): so X <= min_lsn + (pos -
// chain_end) / kMinFrameBytes. Without that bound (a segment whose header is
// damaged), any LSN up to min_lsn + 2^32 counts. Stale frames' payload words
// that look like a near LSN cost a CRC over up to a segment each without
// these filters: ~24% of a W=1 recovery's CPU after 1M TPC-C transactions.
uint64_t intact_frame_after(std::string_view data, uint64_t from, uint64_t min_lsn,
                            const uint64_t* chain_end) {
  constexpr uint64_t kMinFrameBytes = kFrameHeaderBytes + kFrameAlign;  // payload >= 1 byte
  for (uint64_t pos = align_frame(from); pos + kFrameHeaderBytes < data.size();
       pos += kFrameAlign) {
    uint64_t lsn = load_u64(data.data() + pos + 8);
    uint64_t max_lsn = chain_end != nullptr ? min_lsn + (pos - *chain_end) / kMinFrameBytes + 1
                                            : min_lsn + (uint64_t{1} << 32);
    if (lsn < min_lsn || lsn > max_lsn || !plausible_frame(data, pos)) continue;
    uint32_t length;
    if (intact_frame(data, pos, &length, &lsn)) return pos;
  }
  return 0;
}

std::string where(const std::string& path, uint64_t offset) {
  return path + " at offset " + std::to_string(offset);
}

// A continuation frame (log_format.h): the segment the writer went on to.
struct Continuation {
  uint32_t slot = 0;
  uint64_t seq = 0;
  uint64_t first_lsn = 0;
};

// True and *cont set if an intact continuation frame written by the
// segment of seq `own_seq` (not a stale one of an earlier lap) is at `pos`.
bool read_continuation(std::string_view data, uint64_t pos, uint64_t own_seq, Continuation* cont) {
  uint32_t length;
  uint64_t lsn;
  if (!intact_frame(data, pos, &length, &lsn) || lsn != 0 ||
      length != kContinuationBytes - kFrameHeaderBytes) {
    return false;
  }
  const char* payload = data.data() + pos + kFrameHeaderBytes;
  if (static_cast<uint8_t>(payload[0]) != static_cast<uint8_t>(LogEntry::kNext) ||
      load_u64(payload + kNextOwnSeqOff) != own_seq) {
    return false;
  }
  cont->slot = load_u32(payload + kNextSlotOff);
  cont->seq = load_u64(payload + kNextSeqOff);
  cont->first_lsn = load_u64(payload + kNextFirstLsnOff);
  return true;
}

// The log ends in `from`, whose continuation frame at `offset` names a
// segment that is not there as it was started.
Status continuation_broken(const std::vector<SegmentScan>& scans, const SegmentScan& from,
                           uint64_t offset, const Continuation& cont) {
  const std::string dir = from.path.substr(0, from.path.rfind('/'));
  const std::string path = dir + "/" + segment_name(cont.slot);
  const std::string records = ", but " + where(from.path, offset) +
                              " records that the log continues there at round " +
                              std::to_string(cont.first_lsn) + " (segment seq " +
                              std::to_string(cont.seq) + "): rounds are missing";
  for (const SegmentScan& scan : scans) {
    if (scan.info.slot != cont.slot) continue;
    if (!scan.valid) {
      return Status::Corruption("log segment " + path + " (" + std::to_string(scan.info.bytes) +
                                " bytes) has no valid header: it was emptied or damaged" + records);
    }
    return Status::Corruption("log segment " + path + " holds segment seq " +
                              std::to_string(scan.info.seq) + " from round " +
                              std::to_string(scan.info.first_lsn) + records);
  }
  return Status::Corruption("log segment " + path + " is missing" + records);
}

}  // namespace

Status read_segment_headers(FileSystem* fs, const std::string& dir,
                            std::vector<SegmentScan>* scans) {
  std::vector<std::string> names;
  Status status = fs->list(dir, &names);
  if (!status.ok()) return status;
  scans->clear();
  for (const std::string& name : names) {
    uint32_t slot;
    if (!parse_segment_name(name, &slot)) continue;
    SegmentScan scan;
    scan.path = dir + "/" + name;
    scan.info.slot = slot;
    auto file = fs->open(scan.path, OpenMode::kRead);
    if (!file.ok()) return file.status();
    auto size = (*file)->size();
    if (!size.ok()) return size.status();
    scan.info.bytes = *size;
    char header[kSegmentHeaderBytes];
    size_t read = 0;
    status = (*file)->read_at(0, kSegmentHeaderBytes, header, &read);
    if (!status.ok()) return status;
    // An invalid header is a segment never started (zeros) or one whose start
    // was torn: it holds nothing acknowledged (its first sync never returned).
    scan.valid = read == kSegmentHeaderBytes &&
                 std::memcmp(header + kSegMagicOff, kSegmentMagic, 8) == 0 &&
                 load_u32(header + kSegCrcOff) == crc32c_extend(0, header, kSegCrcOff);
    // A sound header of another format version holds records this build
    // cannot read (or, before version 4, no database id): refused, never
    // skipped as if it were empty.
    const uint32_t version = scan.valid ? load_u32(header + kSegVersionOff) : 0;
    if (scan.valid && (version < kOldestReadableLogVersion || version > kLogVersion)) {
      return format_version_refused("log segment " + scan.path, kSegVersionOff, version,
                                    kOldestReadableLogVersion, kLogVersion);
    }
    if (scan.valid) {
      scan.info.seq = load_u64(header + kSegSeqOff);
      scan.info.first_lsn = load_u64(header + kSegFirstLsnOff);
      scan.db_id = load_u64(header + kSegDbIdOff);
      // A segment is preallocated and synced before its header is written,
      // and later writes stay inside it: a started segment shorter than its
      // header says was cut after the fact (not a torn write), and reading
      // it up to the cut would drop acknowledged rounds without a word.
      const uint64_t recorded = load_u64(header + kSegBytesOff);
      if (*size < recorded) {
        return Status::Corruption("log segment " + scan.path + " is " + std::to_string(*size) +
                                  " bytes, but its header at offset " +
                                  std::to_string(kSegBytesOff) + " says " +
                                  std::to_string(recorded) +
                                  ": the file was cut short and rounds after the cut are missing");
      }
    }
    scans->push_back(std::move(scan));
  }
  std::sort(scans->begin(), scans->end(),
            [](const SegmentScan& a, const SegmentScan& b) { return a.info.slot < b.info.slot; });
  return Status::OK();
}

Status read_log(FileSystem* fs, const std::vector<SegmentScan>& scans, uint64_t checkpoint_lsn,
                const ApplyRound& apply, LogState* state) {
  Status status;
  // Valid segments in the order they were started.
  std::vector<size_t> by_seq;
  uint64_t max_seq = 0;
  for (size_t index = 0; index < scans.size(); ++index) {
    if (!scans[index].valid) continue;
    by_seq.push_back(index);
    max_seq = std::max(max_seq, scans[index].info.seq);
  }
  std::sort(by_seq.begin(), by_seq.end(),
            [&](size_t a, size_t b) { return scans[a].info.seq < scans[b].info.seq; });

  state->segments.clear();
  state->chain.clear();
  for (const SegmentScan& scan : scans) {
    LogSegment info = scan.info;
    if (!scan.valid) info.seq = 0;
    state->segments.push_back(info);
  }
  state->next_seq = max_seq + 1;
  state->checkpoint_lsn = checkpoint_lsn;
  uint64_t expected = checkpoint_lsn + 1;

  std::string data;
  // A segment without a valid header must not hold rounds after the
  // checkpoint: a torn start leaves nothing intact behind it, so intact
  // frames there mean a damaged header, not a tail. Checked after the
  // chain (so that the caller applies rounds meanwhile: every preallocated
  // segment never started is such a segment, read whole), but its finding
  // comes first, as if checked before: any result of the chain but an
  // error of `apply` waits for it.
  const uint64_t first_expected = checkpoint_lsn + 1;
  auto check_headerless = [&]() -> Status {
    for (const SegmentScan& scan : scans) {
      if (scan.valid) continue;
      Status read = read_file(fs, scan.path, &data);
      if (!read.ok()) return read;
      uint64_t later = intact_frame_after(data, kSegmentHeaderBytes, first_expected, nullptr);
      if (later != 0) {
        return Status::Corruption("damaged segment header in " + where(scan.path, 0) +
                                  ", but the segment holds an intact record (round " +
                                  std::to_string(load_u64(data.data() + later + 8)) +
                                  ") at offset " + std::to_string(later));
      }
    }
    return Status::OK();
  };
  bool apply_failed = false;
  auto follow_chain = [&]() -> Status {
    // The segment holding `expected`: the newest one that starts at or before it.
    int64_t start = -1;
    for (size_t pos = 0; pos < by_seq.size(); ++pos) {
      if (scans[by_seq[pos]].info.first_lsn <= expected) start = static_cast<int64_t>(pos);
    }
    if (start < 0) {
      for (size_t index : by_seq) {
        if (scans[index].info.first_lsn > expected) {
          return Status::Corruption("log " + scans[index].path + " starts at round " +
                                    std::to_string(scans[index].info.first_lsn) +
                                    " but the checkpoint ends at round " +
                                    std::to_string(checkpoint_lsn) + ": rounds are missing");
        }
      }
      state->next_lsn = expected;
      return Status::OK();
    }

    // Set when the segment before the current one names it in a
    // continuation frame: its first round was synced before that frame.
    std::string named_by;
    // The first segment of the chain starts at the round after the
    // checkpoint (as after a checkpoint at close, or in a new database):
    // the segment started before it (by seq) may name it.
    const SegmentScan& first = scans[by_seq[static_cast<size_t>(start)]];
    if (start > 0 && first.info.first_lsn == expected) {
      const SegmentScan& before = scans[by_seq[static_cast<size_t>(start) - 1]];
      status = read_file(fs, before.path, &data);
      if (!status.ok()) return status;
      uint64_t pos = kSegmentHeaderBytes;
      for (uint64_t lsn = before.info.first_lsn;; ++lsn) {
        uint32_t length;
        uint64_t frame_lsn;
        if (!intact_frame(data, pos, &length, &frame_lsn) || frame_lsn != lsn) break;
        pos += align_frame(kFrameHeaderBytes + length);
      }
      Continuation cont;
      if (read_continuation(data, align_sector(pos), before.info.seq, &cont) &&
          cont.slot == first.info.slot && cont.seq == first.info.seq) {
        named_by = where(before.path, align_sector(pos));
      }
    }
    for (size_t chain_pos = static_cast<size_t>(start); chain_pos < by_seq.size();) {
      const SegmentScan& scan = scans[by_seq[chain_pos]];
      state->chain.push_back(static_cast<uint32_t>(by_seq[chain_pos]));
      status = read_file(fs, scan.path, &data);
      if (!status.ok()) return status;
      uint64_t pos = kSegmentHeaderBytes;
      uint64_t frame_lsn = scan.info.first_lsn;
      while (true) {
        uint32_t length;
        uint64_t lsn;
        if (!intact_frame(data, pos, &length, &lsn) || lsn != frame_lsn) {
          if (frame_lsn >= expected) break;
          // A damaged record the checkpoint covers is not needed: the chain
          // goes on at the next intact record of this lap (a higher LSN,
          // so no earlier lap's), if that is not past the checkpoint's
          // next round. If it is, the check below refuses it.
          uint64_t next = intact_frame_after(data, pos + kFrameAlign, frame_lsn + 1, &pos);
          if (next == 0 || load_u64(data.data() + next + 8) > expected) break;
          frame_lsn = load_u64(data.data() + next + 8);
          pos = next;
          continue;
        }
        if (lsn >= expected) {
          if (lsn != expected) break;
          status = apply(lsn, std::string_view(data).substr(pos + kFrameHeaderBytes, length),
                         scan.path, pos);
          if (!status.ok()) {
            apply_failed = true;
            return status;
          }
          expected++;
        }
        frame_lsn++;
        pos += align_frame(kFrameHeaderBytes + length);
      }
      // A segment named by the one before it had its first round synced:
      // without it here, the rounds after it were lost, not torn.
      if (!named_by.empty() && pos == kSegmentHeaderBytes && scan.info.first_lsn >= expected) {
        return Status::Corruption("the first log record (round " +
                                  std::to_string(scan.info.first_lsn) + ") in " +
                                  where(scan.path, pos) + " is damaged or missing, but " +
                                  named_by + " records that it was written");
      }
      // The frames of this segment end at `pos`. Anything intact and newer
      // after it means the damage is not at the tail.
      uint64_t later = intact_frame_after(data, pos + kFrameAlign, expected, &pos);
      if (later != 0) {
        return Status::Corruption("damaged log record in " + where(scan.path, pos) +
                                  ", followed by an intact record (round " +
                                  std::to_string(load_u64(data.data() + later + 8)) + ") at offset " +
                                  std::to_string(later));
      }
      state->tail_offset = pos;
      Continuation cont;
      const bool continued = read_continuation(data, align_sector(pos), scan.info.seq, &cont);
      // The writer moved on to the next segment if it starts at `expected`
      // (a torn start, which holds nothing, and the segment recovery
      // started after it at the same round both do: read one after the
      // other, the torn start's continuation frame names the second).
      if (chain_pos + 1 < by_seq.size() &&
          scans[by_seq[chain_pos + 1]].info.first_lsn == expected) {
        const SegmentScan& next = scans[by_seq[chain_pos + 1]];
        named_by.clear();
        if (continued && cont.slot == next.info.slot && cont.seq == next.info.seq) {
          named_by = where(scan.path, align_sector(pos));
        }
        chain_pos++;
        continue;
      }
      for (size_t later_pos = chain_pos + 1; later_pos < by_seq.size(); ++later_pos) {
        const SegmentScan& other = scans[by_seq[later_pos]];
        if (other.info.first_lsn >= expected) {
          return Status::Corruption("log ends in " + where(scan.path, pos) + " at round " +
                                    std::to_string(expected - 1) + " but " + other.path +
                                    " continues at round " + std::to_string(other.info.first_lsn));
        }
      }
      // The log ends here, but this segment names the one the writer went
      // on to: that segment was deleted, emptied or damaged.
      if (continued) return continuation_broken(scans, scan, align_sector(pos), cont);
      break;
    }
    state->next_lsn = expected;
    return Status::OK();
  };
  Status chain = follow_chain();
  if (apply_failed) return chain;
  Status headerless = check_headerless();
  return headerless.ok() ? chain : headerless;
}

}  // namespace solo::internal
