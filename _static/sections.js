// A chapter's sections after the Overview wait to be laid out (book.css), so
// that the first paint comes sooner and the browser's work at load is split
// into small pieces. Once the page has loaded they are laid out one at a time
// while the browser is idle; when none is left, the root element gets the
// class "sections-laid-out" and the document the event of that name. A jump is made by where things stand on the
// page, so every section is laid out at once first: at a link to a place on
// this page, and when the page opens at such a place, again after a reload,
// or on a return to it.
(() => {
  const SECTIONS = "article.bd-article > section > section ~ section:not(.laid-out)";
  const layOut = (section) => section.classList.add("laid-out");
  const finished = () => {
    const root = document.documentElement;
    if (root.classList.contains("sections-laid-out")) return;
    root.classList.add("sections-laid-out");
    document.dispatchEvent(new Event("sections-laid-out"));
  };
  const layOutAll = () => {
    document.querySelectorAll(SECTIONS).forEach(layOut);
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

  const whenIdle = "requestIdleCallback" in window
    ? (work) => requestIdleCallback(work)
    : (work) => setTimeout(work, 30);
  const next = () => {
    const section = document.querySelector(SECTIONS);
    if (!section) return finished();
    layOut(section);
    whenIdle(next);
  };
  if (document.readyState === "complete") whenIdle(next);
  else window.addEventListener("load", () => whenIdle(next));
})();
