/**
 * A PNG encoder for images of few colours: a palette image when 256 colours or fewer are used,
 * else true colour; compressed by the runtime's zlib.
 *
 * @module
 */

/** An image: `width` × `height` pixels, 0xRRGGBB each, row by row. */
export interface Pixels {
  /** Width in pixels. */
  width: number;
  /** Height in pixels. */
  height: number;
  /** The pixels. */
  rgb: Uint32Array;
}

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) crc = CRC_TABLE[(crc ^ bytes[i]) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  out.set(new TextEncoder().encode(type), 4);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

async function zlib(bytes: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream("deflate"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** The palette of an image of at most 256 colours (null for more), and each pixel's index. */
function indexed(pixels: Pixels): { palette: number[]; rows: Uint8Array<ArrayBuffer> } | null {
  const { width, height, rgb } = pixels;
  const index = new Map<number, number>();
  const rows = new Uint8Array(height * (width + 1));
  let at = 0;
  for (let y = 0; y < height; y++) {
    rows[at++] = 0; // filter: none
    for (let x = 0; x < width; x++) {
      const colour = rgb[y * width + x];
      let slot = index.get(colour);
      if (slot === undefined) {
        if (index.size === 256) return null;
        slot = index.size;
        index.set(colour, slot);
      }
      rows[at++] = slot;
    }
  }
  return { palette: [...index.keys()], rows };
}

function trueColour(pixels: Pixels): Uint8Array<ArrayBuffer> {
  const { width, height, rgb } = pixels;
  const rows = new Uint8Array(height * (width * 3 + 1));
  let at = 0;
  for (let y = 0; y < height; y++) {
    rows[at++] = 0;
    for (let x = 0; x < width; x++) {
      const colour = rgb[y * width + x];
      rows[at++] = colour >> 16;
      rows[at++] = (colour >> 8) & 255;
      rows[at++] = colour & 255;
    }
  }
  return rows;
}

/** The image as PNG bytes. */
export async function encodePng(pixels: Pixels): Promise<Uint8Array> {
  const paletted = indexed(pixels);
  const header = new Uint8Array(13);
  const view = new DataView(header.buffer);
  view.setUint32(0, pixels.width);
  view.setUint32(4, pixels.height);
  header[8] = 8; // bits a sample (or a palette index)
  header[9] = paletted ? 3 : 2; // palette, or RGB
  const parts = [Uint8Array.from(SIGNATURE), chunk("IHDR", header)];
  if (paletted) {
    const palette = new Uint8Array(paletted.palette.length * 3);
    paletted.palette.forEach((colour, i) => {
      palette[i * 3] = colour >> 16;
      palette[i * 3 + 1] = (colour >> 8) & 255;
      palette[i * 3 + 2] = colour & 255;
    });
    parts.push(chunk("PLTE", palette));
  }
  parts.push(chunk("IDAT", await zlib(paletted ? paletted.rows : trueColour(pixels))));
  parts.push(chunk("IEND", new Uint8Array()));
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
