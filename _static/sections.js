// The blocks of a chapter's sections after the Overview wait to be laid out
// (book.css), so that the first paint comes sooner and the browser's work at
// load is split into small pieces. Once the page has loaded they are laid
// out while the browser is idle, as many at a time as its idle time allows;
// when none is left, the root element gets the class "sections-laid-out" and
// the document the event of that name. A jump is made by where things stand
// on the page, so every block is laid out at once first: at a link to a place
// on this page, and when the page opens at such a place, again after a
// reload, or on a return to it.
(() => {
  const LATER = "article.bd-article > section > section ~ section";
  const BLOCK = ":not(section, h2, h3, h4, :empty, .laid-out)";
  const WAITING = `${LATER} > ${BLOCK}, ${LATER} section > ${BLOCK}`;
  const layOut = (block) => block.classList.add("laid-out");
  const finished = () => {
    const root = document.documentElement;
    if (root.classList.contains("sections-laid-out")) return;
    root.classList.add("sections-laid-out");
    document.dispatchEvent(new Event("sections-laid-out"));
  };
  const layOutAll = () => {
    document.querySelectorAll(WAITING).forEach(layOut);
    finished();
  };
  const target = () => {
    try {
      return document.getElementById(decodeURIComponent(location.hash.slice(1)));
    } catch {
      return null;  // a malformed address
    }
  };
  const [opening] = performance.getEntriesByType("navigation");
  if (opening && opening.type !== "navigate") layOutAll();
  if (location.hash) {
    layOutAll();
    target()?.scrollIntoView();
  }
  document.addEventListener("click", (event) => {
    const link = event.target instanceof Element && event.target.closest("a[href*='#']");
    if (link && link.origin === location.origin && link.pathname === location.pathname) {
      layOutAll();
    }
  }, true);
  window.addEventListener("hashchange", layOutAll);

  const whenIdle = window.bookWhenIdle;  // scroll-cue.js, loaded before
  let blocks = null;
  const next = (deadline) => {
    blocks ??= [...document.querySelectorAll(WAITING)].reverse();
    // Reading a size lays the block out now, so that the idle time left
    // counts its cost.
    do {
      const block = blocks.pop();
      if (!block) return finished();
      layOut(block);
      block.getBoundingClientRect();
    } while (deadline.timeRemaining() > 4);
    whenIdle(next);
  };
  if (document.readyState === "complete") whenIdle(next);
  else window.addEventListener("load", () => whenIdle(next));
})();
