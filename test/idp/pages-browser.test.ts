/**
 * Every page of the server's own design (test/support/page-tour.ts), in chromium at a phone's width and a
 * desktop's: styled by its stylesheet (a page that loses it, or whose policy blocks it, falls back to the
 * browser's defaults and fails here), every input with a label, every button with a name, nothing wider than
 * the window, a visible focus ring on what the keyboard reaches, and its scripts running without a policy
 * violation. Also the WebAuthn errors in words: on an IP address, and when no passkey answers.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, launchChromium } from '../support/chromium.ts';
import { pageTour, type Tour } from '../support/page-tour.ts';
import { startSvc, type RunningSvc } from '../support/server.ts';

const WIDTHS = [
  { name: 'phone', width: 375, height: 740 },
  { name: 'desktop', width: 1280, height: 900 },
];

interface Findings {
  /** What the design sets and a page without its stylesheet lacks. */
  style: { mainMaxWidth: string; mainRadius: string; bodyFont: string; buttonRadius: string | null };
  unlabeledInputs: string[];
  unnamedButtons: string[];
  overflow: number;
}

/** What the page shows of its design; run in the page. */
function inspect(): Findings {
  const main = document.querySelector('main');
  const mainStyle = main ? getComputedStyle(main) : null;
  const button = document.querySelector('main button:not([hidden])');
  const visible = (element: Element) => (element as HTMLElement).offsetParent !== null || getComputedStyle(element).position === 'fixed';
  const describe = (element: Element) => element.outerHTML.slice(0, 120);
  const inputs = [...document.querySelectorAll('input:not([type=hidden]), select, textarea')];
  return {
    style: {
      mainMaxWidth: mainStyle?.maxWidth ?? '',
      mainRadius: mainStyle?.borderTopLeftRadius ?? '',
      bodyFont: getComputedStyle(document.body).fontFamily,
      buttonRadius: button ? getComputedStyle(button).borderTopLeftRadius : null,
    },
    unlabeledInputs: inputs.filter((input) => ((input as HTMLInputElement).labels?.length ?? 0) === 0 && !input.getAttribute('aria-label') && !input.getAttribute('aria-labelledby')).map(describe),
    unnamedButtons: [...document.querySelectorAll('button, a.button')].filter(visible).filter((element) => !(element.textContent ?? '').trim() && !element.getAttribute('aria-label')).map(describe),
    overflow: document.documentElement.scrollWidth - window.innerWidth,
  };
}

/** The outline of whatever the first press of Tab reaches. */
async function focusRing(page: Page): Promise<{ element: string; outline: string }> {
  await page.keyboard.press('Tab');
  return page.evaluate(() => {
    const active = document.activeElement as HTMLElement;
    const style = getComputedStyle(active);
    return { element: active.tagName, outline: `${style.outlineStyle} ${style.outlineWidth}` };
  });
}

describe.skipIf(!hasChromium)('the pages of the identity provider in chromium', () => {
  let browser: Browser;
  let tour: Tour;

  beforeAll(async () => {
    [browser, tour] = await Promise.all([launchChromium(), pageTour()]);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await tour?.stop();
  });

  for (const size of WIDTHS) {
    it(`at ${size.width} px (${size.name}) each page is styled, labelled, fits and shows focus`, async () => {
      const { context, page } = await tour.context(browser, size);
      // A policy violation or a script that does not run is a page that lost part of itself.
      const violations: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) violations.push(message.text());
      });
      page.on('pageerror', (error) => violations.push(`${page.url()}: ${error.message}`));
      for (const stop of tour.stops) {
        await stop.visit(page);
        await page.waitForLoadState();
        const found = await page.evaluate(inspect);
        expect.soft(found.style, `${stop.name}: the stylesheet`).toEqual({ mainMaxWidth: '672px', mainRadius: '14px', bodyFont: expect.stringContaining('system-ui'), buttonRadius: found.style.buttonRadius === null ? null : '9px' });
        expect.soft(found.unlabeledInputs, `${stop.name}: inputs without a label`).toEqual([]);
        expect.soft(found.unnamedButtons, `${stop.name}: buttons without a name`).toEqual([]);
        expect.soft(found.overflow, `${stop.name}: wider than the window`).toBeLessThanOrEqual(0);
        if (stop.name === 'login' || stop.name === 'register' || stop.name === 'account') {
          const ring = await focusRing(page);
          expect.soft(ring.outline, `${stop.name}: the focus ring on ${ring.element}`).toBe('solid 3px');
        }
      }
      expect(violations).toEqual([]);
      await context.close();
    }, 180_000);
  }
});

describe.skipIf(!hasChromium)('WebAuthn errors in words', () => {
  let svc: RunningSvc;
  let browser: Browser;

  beforeAll(async () => {
    [svc, browser] = await Promise.all([startSvc(['--idp', '--quiet']), launchChromium()]);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await svc?.stop();
  });

  it('on an IP address: passkeys need a domain name, and which address to open instead', async () => {
    const page = await browser.newPage();
    await page.goto(`${svc.base}/idp/auth`);
    await page.click('#passkey-login');
    const status = page.locator('#passkey-status[role=alert]');
    await status.waitFor();
    const localhost = svc.base.replace('127.0.0.1', 'localhost');
    await expect(status.textContent()).resolves.toBe(`Passkeys need a domain name, not an IP address: open ${localhost}/ instead and log in there.`);
    await page.close();
  }, 60_000);

  it('when no passkey answers (cancelled, timed out, or none on this device): what to do next', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    // An authenticator that holds no passkey for this site: the browser answers NotAllowedError, as for a cancelled prompt.
    await cdp.send('WebAuthn.addVirtualAuthenticator', { options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true } });
    await page.goto(`${svc.base.replace('127.0.0.1', 'localhost')}/idp/auth`);
    await page.click('#passkey-login');
    const status = page.locator('#passkey-status[role=alert]');
    await status.waitFor();
    expect(await status.textContent()).toMatch(/^The passkey prompt was cancelled or timed out\. Try again/);
    await context.close();
  }, 60_000);
});
