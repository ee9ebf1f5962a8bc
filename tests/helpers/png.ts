// Reads the PNG files the server draws (8-bit palette or RGB, filter "none" on every row, as
// src/screen/png.ts writes them) back into pixels, so tests compare what an image shows, not how
// its bytes were compressed.

/** An image's pixels, 0xRRGGBB each, row by row. */
export interface DecodedPng {
  width: number;
  height: number;
  rgb: Uint32Array;
}

async function inflate(bytes: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** The pixels of a PNG; throws on what this reader does not know (it is not a general decoder). */
export async function decodePng(png: Uint8Array): Promise<DecodedPng> {
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  const signature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (!signature.every((byte, i) => png[i] === byte)) throw new Error("not a PNG");
  let at = 8;
  let width = 0;
  let height = 0;
  let type = 0;
  let palette: number[] = [];
  const data: Uint8Array[] = [];
  while (at < png.length) {
    const length = view.getUint32(at);
    const kind = new TextDecoder().decode(png.subarray(at + 4, at + 8));
    const body = png.subarray(at + 8, at + 8 + length);
    if (kind === "IHDR") {
      width = view.getUint32(at + 8);
      height = view.getUint32(at + 12);
      if (body[8] !== 8) throw new Error(`bit depth ${body[8]}`);
      type = body[9];
    } else if (kind === "PLTE") {
      palette = [];
      for (let i = 0; i < body.length; i += 3) {
        palette.push((body[i] << 16) | (body[i + 1] << 8) | body[i + 2]);
      }
    } else if (kind === "IDAT") data.push(body);
    at += 12 + length;
  }
  const joined = new Uint8Array(data.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of data) {
    joined.set(part, offset);
    offset += part.length;
  }
  const raw = await inflate(joined);
  const channels = type === 3 ? 1 : 3;
  const rgb = new Uint32Array(width * height);
  for (let y = 0; y < height; y++) {
    const row = y * (width * channels + 1);
    if (raw[row] !== 0) throw new Error(`row ${y}: filter ${raw[row]}`);
    for (let x = 0; x < width; x++) {
      const p = row + 1 + x * channels;
      rgb[y * width + x] = type === 3
        ? palette[raw[p]]
        : (raw[p] << 16) | (raw[p + 1] << 8) | raw[p + 2];
    }
  }
  return { width, height, rgb };
}
