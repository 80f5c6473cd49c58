// Static side of d2l_local.widgets.choice_controls: in the built HTML there is
// no kernel, so the sliders (and rows of radio buttons) switch between figures
// drawn at build time. The figures travel gzip-compressed (they differ little
// from one another) and are unpacked once with the browser's
// DecompressionStream.
(function (script) {
  "use strict";
  const root = script.closest(".d2l-control");
  if (!root || root.dataset.ready) return;
  const source = root.querySelector("script.d2l-control-data");
  const rows = Array.from(root.querySelectorAll(".d2l-control-row"));
  const inputs = Array.from(root.querySelectorAll("input"));
  const image = root.querySelector("img.d2l-control-frame");
  const status = root.querySelector(".d2l-control-status");

  // What the reader is told while the figures for the other values arrive,
  // and if they cannot: the figure shown stays the one for the starting
  // values, and the controls stay still.
  const STILL = " The figure shown is for the starting values; the controls cannot change it.";
  function fail(message, error) {
    status.textContent = message + STILL;
    root.dataset.ready = "failed";
    if (error) console.warn("d2l control " + root.id + ":", error);
  }
  if (typeof DecompressionStream === "undefined") {
    fail("This browser is too old to unpack the figures for the other values " +
      "(Chrome 80, Firefox 113 or Safari 16.4 can).");
    return;
  }
  status.textContent = "Loading the figures for the other values\u2026";
  root.dataset.ready = "loading";
  // In a notebook the data sits in the control. The built book moves it to a
  // script file of its own (see _ext/book_pages.py), fetched when the control
  // comes near the screen, so that it never holds up the page.
  function loadData() {
    if (source.type === "application/json") return Promise.resolve(JSON.parse(source.textContent));
    const stored = () => (window.d2lControlData || {})[root.id];
    return new Promise((resolve, reject) => {
      const fetchFile = () => {
        const script = document.createElement("script");
        script.src = source.dataset.src;
        script.onload = () => stored() ? resolve(stored())
          : reject(new Error("no figures in " + script.src));
        script.onerror = () => reject(new Error("could not load " + script.src));
        document.head.appendChild(script);
      };
      if (!("IntersectionObserver" in window)) return fetchFile();
      const watcher = new IntersectionObserver((entries) => {
        if (!entries.some((entry) => entry.isIntersecting)) return;
        watcher.disconnect();
        fetchFile();
      }, { rootMargin: "800px 0px" });
      watcher.observe(root);
    });
  }
  let data;
  loadData().then((loaded) => {
    data = loaded;
    const packed = Uint8Array.from(atob(data.packed), (c) => c.charCodeAt(0));
    const unpacked = new Blob([packed]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(unpacked).json();
  }).then(({ frames, alts }) => {
    // A row's position: its slider's value, or which of its buttons is
    // checked. A slider also shows the label of its value.
    function position(row, labels) {
      const slider = row.querySelector("input[type=range]");
      if (!slider) {
        const checked = row.querySelector("input[type=radio]:checked");
        return Number(checked.value);
      }
      const value = Number(slider.value);
      slider.setAttribute("aria-valuetext", labels[value]);
      row.querySelector("output").textContent = labels[value];
      return value;
    }
    function show() {
      let index = 0;
      rows.forEach((row, k) => {
        // The frames' order: d2l_local.widgets.frame_index.
        index = index * data.labels[k].length + position(row, data.labels[k]);
      });
      image.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(frames[index]);
      image.alt = alts[index];
      root.dataset.frame = String(index);
    }
    inputs.forEach((input) => {
      input.addEventListener("input", show);
      input.disabled = false;
    });
    status.textContent = "";
    root.dataset.ready = "true";
  }).catch((error) => {
    fail("The figures for the other values could not be loaded: reload the " +
      "page to try again, or run the notebook.", error);
  });
})(document.currentScript);
