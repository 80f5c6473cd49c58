// Static side of d2l_local.widgets.choice_controls: in the built HTML there is
// no kernel, so the sliders switch between figures drawn at build time. The
// figures travel gzip-compressed (they differ little from one another) and are
// unpacked once with the browser's DecompressionStream.
(function (script) {
  "use strict";
  const root = script.closest(".d2l-control");
  if (!root || root.dataset.ready) return;
  const source = root.querySelector("script.d2l-control-data");
  const inputs = Array.from(root.querySelectorAll("input.d2l-control-input"));
  const shown = Array.from(root.querySelectorAll("output.d2l-control-value"));
  const image = root.querySelector("img.d2l-control-frame");
  const status = root.querySelector(".d2l-control-status");

  // What the reader is told while the figures for the other values arrive,
  // and if they cannot: the figure shown stays the one for the starting
  // values, and the sliders stay still.
  const STILL = " The figure shown is for the starting values; the sliders cannot move it.";
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
    function show() {
      let index = 0;
      inputs.forEach((input, k) => {
        const position = Number(input.value);
        const label = data.labels[k][position];
        input.setAttribute("aria-valuetext", label);
        shown[k].textContent = label;
        // The frames' order: d2l_local.widgets.frame_index.
        index = index * data.labels[k].length + position;
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
