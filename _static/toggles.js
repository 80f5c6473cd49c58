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
});
