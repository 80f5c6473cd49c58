// The themes bind only the first .primary-toggle and .secondary-toggle on a
// page, which is the navbar's and hidden in this layout, so the visible
// buttons did nothing (pydata-sphinx-theme issue 2451). Pass their clicks on.
document.addEventListener("DOMContentLoaded", () => {
  for (const name of ["primary-toggle", "secondary-toggle"]) {
    const [bound, ...others] = document.querySelectorAll(`.${name}`);
    for (const button of others) {
      button.addEventListener("click", (event) => {
        event.preventDefault();
        event.stopImmediatePropagation();
        bound.click();
      });
    }
  }
  // On a phone the table of contents and the page's contents open as modal
  // dialogs. A tapped link leaves the dialog open over the section it shows,
  // and Escape, heard only while the focus is inside the dialog, no longer
  // reached it. Close the dialog on a tapped link (the browser then shows
  // the section) and on Escape wherever the focus is.
  const dialogs = ["pst-primary-sidebar-modal", "pst-secondary-sidebar-modal"]
    .map((id) => document.getElementById(id))
    .filter(Boolean);
  for (const dialog of dialogs) {
    dialog.addEventListener("click", (event) => {
      if (event.target instanceof Element && event.target.closest("a[href]")) {
        dialog.close();
      }
    });
  }
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape") return;
    for (const dialog of dialogs) if (dialog.open) dialog.close();
  });
});
