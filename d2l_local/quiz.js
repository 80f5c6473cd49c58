// Self-checks of d2l_local.quiz: checks each answer in the page, with no
// kernel and nothing fetched. A choice is checked when its button is pressed;
// a number when its form is submitted (Enter or the Check button). The
// feedback goes into the question's live region (role="status").
(function (script) {
  "use strict";
  const root = script.closest(".d2l-quiz");
  if (!root || root.dataset.ready) return;
  const data = JSON.parse(root.querySelector("script.d2l-quiz-data").textContent);
  const forms = Array.from(root.querySelectorAll("form.d2l-quiz-question"));

  function show(form, html, right) {
    const feedback = form.querySelector(".d2l-quiz-feedback");
    feedback.innerHTML = html;
    feedback.dataset.verdict = right ? "right" : "wrong";
    form.dataset.answered = right ? "right" : "wrong";
  }

  // "1,048,576", "1 048 576", "−3" and "0.25" are all numbers here, and so
  // is "0,5035": one comma that cannot group thousands (a leading 0, or not
  // three digits after it) is a decimal comma.
  function parse(text) {
    let cleaned = text.replace(/[\s_\u2009\u202f]/g, "").replace(/\u2212/g, "-");
    const decimalComma = /^-?\d+,\d+$/.test(cleaned) &&
      !/^-?[1-9]\d{0,2},\d{3}$/.test(cleaned);
    cleaned = decimalComma ? cleaned.replace(",", ".") : cleaned.replace(/,/g, "");
    return cleaned === "" ? NaN : Number(cleaned);
  }

  forms.forEach((form, index) => {
    const spec = data.questions[index];
    if (spec.kind === "choice") {
      const buttons = Array.from(form.querySelectorAll("button.d2l-quiz-option"));
      buttons.forEach((button, k) => {
        // JupyterLab takes Enter and Space for its own commands while an
        // output's button has the focus: the button answers them first.
        button.addEventListener("keydown", (event) => {
          if (event.key !== "Enter" && event.key !== " ") return;
          event.preventDefault();
          event.stopPropagation();
          button.click();
        });
        button.addEventListener("click", () => {
          buttons.forEach((other) => {
            other.setAttribute("aria-pressed", String(other === button));
            delete other.dataset.verdict;
          });
          const right = k === spec.correct;
          button.dataset.verdict = right ? "right" : "wrong";
          show(form, spec.feedback[k], right);
        });
      });
    } else {
      const input = form.querySelector("input");
      const check = () => {
        const value = parse(input.value);
        if (Number.isNaN(value)) {
          show(form, "<strong>Not a number.</strong> Type digits, such as 1,024 or 0.25.", false);
          return;
        }
        const near = (target) => Math.abs(value - target) <= spec.tolerance;
        if (near(spec.answer)) {
          show(form, spec.right, true);
          return;
        }
        const trap = spec.traps.find(([target]) => near(target));
        show(form, trap ? trap[1] : spec.wrong, false);
      };
      form.addEventListener("submit", (event) => {
        event.preventDefault();
        check();
      });
      // The same for Enter in the text box.
      input.addEventListener("keydown", (event) => {
        if (event.key !== "Enter") return;
        event.preventDefault();
        event.stopPropagation();
        check();
      });
    }
    form.querySelectorAll("button, input").forEach((element) => {
      element.disabled = false;
    });
  });

  // A proof link leads to an element of the page: in the book the browser
  // follows it. In JupyterLab the element's id is renamed data-jupyter-id
  // (its sanitizer does that to every markdown cell) and the page is the
  // notebook's app, so the link scrolls there itself; where the element is
  // missing (Colab shows each output apart from the notebook), the link's
  // words say what to look for.
  root.addEventListener("click", (event) => {
    const link = event.target.closest("a.d2l-quiz-proof");
    if (!link || !root.closest(".jp-OutputArea, .output_area")) return;
    const id = link.getAttribute("href").slice(1);
    const target = document.getElementById(id) ||
      document.querySelector('[data-jupyter-id="' + id + '"]');
    event.preventDefault();
    if (target) target.scrollIntoView({ block: "start" });
  });
  root.dataset.ready = "true";
})(document.currentScript);
