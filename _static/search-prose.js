// Search results quote the text around the first hit on a page. Code cells,
// their outputs and the page's own table of contents come first on many
// pages, so the quote was often code or a list of headings: leave them out
// of the text that the quotes are taken from.
document.addEventListener("DOMContentLoaded", () => {
  if (typeof Search === "undefined" || !Search.htmlToText) return;
  const withCode = Search.htmlToText;
  Search.htmlToText = (htmlString, anchor) => {
    const page = new DOMParser().parseFromString(htmlString, "text/html");
    const notProse = "div.cell, .d2l-control, .bd-sidebar-secondary, .onlyprint, " +
      ".bd-header-article, .prev-next-area, .bd-footer-article";
    page.querySelectorAll(notProse).forEach((el) => el.remove());
    // A formula is typeset twice (HTML for the eye, MathML for screen
    // readers): quote it once, as its TeX source.
    page.querySelectorAll(".katex").forEach((formula) => {
      const tex = formula.querySelector('annotation[encoding="application/x-tex"]');
      formula.replaceWith(tex ? `$${tex.textContent}$` : formula.textContent);
    });
    return withCode(page.documentElement.outerHTML, anchor);
  };
});
