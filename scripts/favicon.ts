// Draws the pages' logo (LOGO_SVG of src/http/html.ts) at 16 and 32 pixels in chromium and writes them as
// one .ico (PNG entries) into src/http/favicon-data.ts. Run after changing the logo: npm run docs:favicon
import { writeFile } from 'node:fs/promises';
import { LOGO_SVG } from '../src/http/html.ts';
import { launchChromium } from '../test/support/chromium.ts';

const SIZES = [16, 32];

const browser = await launchChromium();
const images: Buffer[] = [];
for (const size of SIZES) {
  const page = await browser.newPage({ viewport: { width: size, height: size } });
  await page.setContent(`<body style="margin:0">${LOGO_SVG.replace('<svg ', `<svg width="${size}" height="${size}" `)}</body>`);
  images.push(await page.screenshot({ omitBackground: true, type: 'png' }));
  await page.close();
}
await browser.close();

// ICONDIR, one ICONDIRENTRY per image (width, height, colours, reserved, planes, bits, size, offset), the PNGs.
const header = Buffer.alloc(6 + 16 * images.length);
header.writeUInt16LE(1, 2);
header.writeUInt16LE(images.length, 4);
let offset = header.length;
images.forEach((png, index) => {
  const entry = 6 + 16 * index;
  header.writeUInt8(SIZES[index]!, entry);
  header.writeUInt8(SIZES[index]!, entry + 1);
  header.writeUInt16LE(1, entry + 4);
  header.writeUInt16LE(32, entry + 6);
  header.writeUInt32LE(png.length, entry + 8);
  header.writeUInt32LE(offset, entry + 12);
  offset += png.length;
});
const ico = Buffer.concat([header, ...images]);
await writeFile(
  'src/http/favicon-data.ts',
  `/** The favicon (.ico with PNG images of LOGO_SVG at ${SIZES.join(' and ')} px), written by scripts/favicon.ts. */\nexport const FAVICON_BASE64 =\n  '${ico.toString('base64')}';\n`,
);
console.log(`src/http/favicon-data.ts: ${ico.length} bytes of icon`);
