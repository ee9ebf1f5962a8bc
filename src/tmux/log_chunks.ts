/**
 * The full-size chunks output logs keep their bytes in, carved from two slabs: one for logs being
 * written, one for the logs the store keeps once their runs are over. Each is asked of the system
 * as one mapping when first needed and let go once no chunk of it is in use. Chunks of their own
 * stayed with the process after the logs let them go (the allocator keeps what is freed among
 * what is still in use, and returns only the top of its heap: 16 runs of 20 MB at once left RSS
 * 57 MB above its start 30 s later). A slab larger than the allocator's largest mmap threshold
 * (glibc: 32 MiB) is a mapping of its own whatever came before, returned whole once collected;
 * its pages are touched only as chunks are used.
 *
 * @module
 */

/** Bytes in a chunk. */
export const CHUNK_BYTES = 64 * 1024;

/** Chunks of one slab, handed out and taken back. */
class ChunkSlab {
  readonly #chunks: number;
  #buffer: ArrayBuffer | null = null;
  /** Free chunks, by index. */
  #free: number[] = [];
  /** 1 where a chunk is in use, so one given back twice is not freed twice. */
  #taken = new Uint8Array(0);
  #used = 0;

  constructor(chunks: number) {
    this.#chunks = chunks;
  }

  /** A free chunk, or null when all are in use. */
  take(): Uint8Array | null {
    if (this.#buffer === null) {
      this.#buffer = new ArrayBuffer(this.#chunks * CHUNK_BYTES);
      this.#taken = new Uint8Array(this.#chunks);
      this.#free = [];
      for (let i = this.#chunks - 1; i >= 0; i--) this.#free.push(i);
    }
    const index = this.#free.pop();
    if (index === undefined) return null;
    this.#taken[index] = 1;
    this.#used++;
    return new Uint8Array(this.#buffer, index * CHUNK_BYTES, CHUNK_BYTES);
  }

  /** Whether the chunk is this slab's. */
  owns(chunk: Uint8Array): boolean {
    return this.#buffer !== null && chunk.buffer === this.#buffer;
  }

  /** Takes a chunk back (the slab goes once none is in use); false when it is not this slab's. */
  give(chunk: Uint8Array): boolean {
    if (!this.owns(chunk)) return false;
    const index = chunk.byteOffset / CHUNK_BYTES;
    if (this.#taken[index] === 0) return true;
    this.#taken[index] = 0;
    this.#free.push(index);
    if (--this.#used === 0) this.#buffer = null;
    return true;
  }

  get bytesInUse(): number {
    return this.#used * CHUNK_BYTES;
  }
}

/** Logs being written: as many chunks as their shared ceiling (48 MiB, output_log.ts) holds. */
const WRITING = new ChunkSlab(768);

/** Logs kept after their runs (8 MiB, run_output.ts), in a slab past the mmap threshold: 33 MiB. */
const KEPT = new ChunkSlab(528);

/** A chunk of {@linkcode CHUNK_BYTES} for a log being written: the slab's, else one of its own. */
export function takeChunk(): Uint8Array {
  return WRITING.take() ?? new Uint8Array(CHUNK_BYTES);
}

/**
 * The chunk to keep for good, its first `used` bytes as `chunk` holds them: a chunk of the
 * writing slab is moved to the slab of kept logs (or a buffer of its own) and given back, so that
 * the writing slab goes once the runs are over; any other is returned as it is.
 */
export function keepChunk(chunk: Uint8Array, used: number): Uint8Array {
  if (!WRITING.owns(chunk)) return chunk;
  const kept = KEPT.take() ?? new Uint8Array(used);
  kept.set(chunk.subarray(0, used));
  WRITING.give(chunk);
  return kept;
}

/** Gives back a chunk its log no longer uses (one of its own is left to the garbage collector). */
export function giveChunk(chunk: Uint8Array): void {
  if (!WRITING.give(chunk)) KEPT.give(chunk);
}

/** Bytes of slab chunks in use now, by slab. */
export function slabBytesInUse(): { writing: number; kept: number } {
  return { writing: WRITING.bytesInUse, kept: KEPT.bytesInUse };
}
