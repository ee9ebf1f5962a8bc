/**
 * The chunks the server keeps bytes from panes and peers in, carved from two slabs: one for bytes
 * in flight (logs being written, the pieces of a long line or an answer being read), one for the
 * logs the store keeps once their runs are over. Each is asked of the system as one mapping when
 * first needed and let go once no chunk of it is in use. Buffers of their own stayed with the
 * process after they were freed (the allocator keeps what is freed among what is still in use, and
 * returns only the top of its heap: 16 runs of 20 MB at once left RSS 57 MB above its start 30 s
 * later, a host's 20 MB line 30 MB). A slab larger than the allocator's largest mmap threshold
 * (glibc: 32 MiB) is a mapping of its own whatever came before, returned whole once collected;
 * its pages are touched only as chunks are used.
 *
 * @module
 */

/** Bytes in a chunk. */
export const CHUNK_BYTES = 64 * 1024;

/**
 * Chunks a slab that none is in use keeps, when no more of its chunks were ever used: a slab is
 * not asked for and let go again for each small answer (a new one costs a collection, sooner or
 * later), and its pages touched stay few.
 */
const IDLE_CHUNKS = 16;

/** Chunks of one slab, handed out and taken back. */
class ChunkSlab {
  readonly #chunks: number;
  #buffer: ArrayBuffer | null = null;
  /** Free chunks, by index. */
  #free: number[] = [];
  /** 1 where a chunk is in use, so one given back twice is not freed twice. */
  #taken = new Uint8Array(0);
  #used = 0;
  /** Chunks of the buffer ever handed out: the lowest first, and the last given back reused. */
  #touched = 0;

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
      this.#touched = 0;
    }
    const index = this.#free.pop();
    if (index === undefined) return null;
    this.#taken[index] = 1;
    this.#used++;
    this.#touched = Math.max(this.#touched, index + 1);
    return new Uint8Array(this.#buffer, index * CHUNK_BYTES, CHUNK_BYTES);
  }

  /** Whether the chunk is this slab's. */
  owns(chunk: Uint8Array): boolean {
    return this.#buffer !== null && chunk.buffer === this.#buffer;
  }

  /**
   * Takes a chunk back (the slab goes once none is in use, unless it was only ever lightly used);
   * false when it is not this slab's.
   */
  give(chunk: Uint8Array): boolean {
    if (!this.owns(chunk)) return false;
    const index = chunk.byteOffset / CHUNK_BYTES;
    if (this.#taken[index] === 0) return true;
    this.#taken[index] = 0;
    this.#free.push(index);
    if (--this.#used === 0 && this.#touched > IDLE_CHUNKS) this.#buffer = null;
    return true;
  }

  get bytesInUse(): number {
    return this.#used * CHUNK_BYTES;
  }
}

/** Bytes in flight: as many chunks as the logs' shared ceiling (48 MiB, output_log.ts) holds. */
const WRITING = new ChunkSlab(768);

/** Logs kept after their runs (8 MiB, run_output.ts), in a slab past the mmap threshold: 33 MiB. */
const KEPT = new ChunkSlab(528);

/** A chunk of {@linkcode CHUNK_BYTES} for bytes in flight: the slab's, else one of its own. */
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

/**
 * Bytes gathered piece by piece (the start of a long line, the head of an answer) in chunks of
 * the slab for bytes in flight, each filled before the next is taken, and joined once into an
 * array of their own.
 */
export class Pieces {
  #chunks: Uint8Array[] = [];
  #length = 0;

  /** Bytes gathered. */
  get length(): number {
    return this.#length;
  }

  /** Copies `bytes` in. */
  push(bytes: Uint8Array): void {
    for (let at = 0; at < bytes.length;) {
      let room = this.#chunks.length * CHUNK_BYTES - this.#length;
      if (room === 0) {
        this.#chunks.push(takeChunk());
        room = CHUNK_BYTES;
      }
      const piece = bytes.subarray(at, at + room);
      this.#chunks.at(-1)!.set(piece, CHUNK_BYTES - room);
      this.#length += piece.length;
      at += piece.length;
    }
  }

  /** Every byte gathered, in one array of their own; empty again after. */
  join(): Uint8Array {
    const bytes = new Uint8Array(this.#length);
    this.#chunks.forEach((chunk, i) => {
      const at = i * CHUNK_BYTES;
      bytes.set(chunk.subarray(0, Math.min(CHUNK_BYTES, this.#length - at)), at);
    });
    this.release();
    return bytes;
  }

  /** Gives the chunks back, dropping what they held. */
  release(): void {
    for (const chunk of this.#chunks) giveChunk(chunk);
    this.#chunks = [];
    this.#length = 0;
  }
}
