// Photographs every page of the server's own design at a phone's and a desktop's width (the walk of
// test/support/page-tour.ts, against real `svc start` processes) into docs/screenshots/, as small
// palette PNGs. Run: npm run docs:screenshots
import { mkdir, writeFile } from 'node:fs/promises';
import sharp from 'sharp';
import { launchChromium } from '../test/support/chromium.ts';
import { pageTour } from '../test/support/page-tour.ts';

const OUTPUT = 'docs/screenshots';
const WIDTHS = [
  { name: 'phone', width: 390, height: 844 },
  { name: 'desktop', width: 1280, height: 860 },
];

await mkdir(OUTPUT, { recursive: true });
const [browser, tour] = await Promise.all([launchChromium(), pageTour()]);
let bytes = 0;
try {
  for (const size of WIDTHS) {
    const { context, page } = await tour.context(browser, size);
    for (const stop of tour.stops) {
      await stop.visit(page);
      await page.waitForLoadState();
      // The page as a person sees it: no caret blinking in a field the walk filled.
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      const shot = await page.screenshot({ fullPage: true });
      const small = await sharp(shot).png({ palette: true, colours: 64, compressionLevel: 9, effort: 10 }).toBuffer();
      await writeFile(`${OUTPUT}/${stop.name}-${size.name}.png`, small);
      bytes += small.length;
    }
    await context.close();
  }
} finally {
  await browser.close();
  await tour.stop();
}
console.log(`${OUTPUT}: ${tour.stops.length * WIDTHS.length} screenshots, ${Math.round(bytes / 1024)} KB`);
