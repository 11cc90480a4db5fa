/**
 * Watches what the page loads as resources: its linked stylesheets (the codicon stylesheet) and its
 * fonts. In a browser-hosted VS Code (code-server) the webviews share one service worker, and a request
 * made while another view registers it can miss the worker and fail (see
 * src/views/sidebar/webview-html.ts); the page then lacks its icons for good. `report` is called once,
 * naming what was lost, so the host can load the page again.
 */
export function watchResources(report: (what: string) => void): void {
  let reported = false;
  const lost = (what: string) => {
    if (reported) return;
    reported = true;
    report(what);
  };
  const nameOf = (link: HTMLLinkElement) => link.href.split('/').pop()?.split('?')[0] ?? 'a stylesheet';
  for (const link of document.querySelectorAll<HTMLLinkElement>('link[rel="stylesheet"]')) {
    // A script waits for the stylesheets before it in the document, so one without a sheet now has failed.
    if (link.sheet === null) lost(`the stylesheet ${nameOf(link)}`);
    link.addEventListener('error', () => lost(`the stylesheet ${nameOf(link)}`));
  }
  document.fonts.forEach((face) => {
    if (face.status === 'error') lost(`the font ${face.family}`);
  });
  document.fonts.addEventListener('loadingerror', (event) => {
    const face = event.fontfaces[0];
    lost(`the font ${face?.family ?? ''}`.trim());
  });
}
