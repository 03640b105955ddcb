() => {
  // The page's own behaviour (courserag/ui/client.js, run once when the page loads):
  // the source panel, the sidebar toggle on narrow screens, and the page language.
  if (window.crReady) return;
  window.crReady = true;
  // Gradio's own words that do not follow a locale change made after the page loaded
  // (the upload box draws them once): the same words as Gradio's en and zh-CN dictionaries.
  const WORDS = {
    en: { close: "Close", drop: "Drop File Here", or: "- or -", click: "Click to Upload", file: "File upload" },
    zh: { close: "关闭", drop: "将文件拖放到此处", or: "- 或 -", click: "点击上传", file: "文件上传" },
  };
  const lang = () => (document.documentElement.lang || "en").toLowerCase().startsWith("zh") ? "zh" : "en";

  // -- the page language: <html lang> and Gradio's own strings ------------------------
  const relabelUploads = () => {
    if (!window.crLang) return;
    const w = WORDS[window.crLang];
    for (const box of document.querySelectorAll("[data-testid='upload-text']")) {
      const texts = [...box.childNodes].filter((n) => n.nodeType === 3 && n.nodeValue.trim());
      if (texts.length >= 2 && texts[0].nodeValue.trim() !== w.drop) {
        texts[0].nodeValue = `${w.drop} `;
        texts[texts.length - 1].nodeValue = ` ${w.click}`;
        const or = box.querySelector(".or");
        if (or && or.textContent !== w.or) or.textContent = w.or;
      }
      const input = box.parentElement && box.parentElement.querySelector("input[type=file]");
      if (input && input.getAttribute("aria-label") !== w.file) input.setAttribute("aria-label", w.file);
    }
  };

  window.crSetLang = (value) => {
    const code = value === "zh" ? "zh-CN" : "en";
    window.crLang = value === "zh" ? "zh" : "en";
    document.documentElement.lang = code;
    relabelUploads();
    const core = performance.getEntriesByType("resource").map((e) => e.name).find((n) => /\/assets\/core-[\w-]+\.js$/.test(n));
    if (core) {
      import(core).then((m) => m.changeLocale && m.changeLocale(code)).catch(() => {});
    }
    const close = document.getElementById("cr-sp-close");
    if (close) close.setAttribute("aria-label", WORDS[window.crLang].close);
    if (window.crNameByText) window.crNameByText();
  };

  // -- the source panel ---------------------------------------------------------------
  let opener = null;
  const panel = document.createElement("aside");
  panel.id = "cr-source-panel";
  panel.setAttribute("role", "dialog");
  panel.setAttribute("aria-modal", "false");
  panel.setAttribute("aria-labelledby", "cr-sp-title");
  panel.hidden = true;
  panel.innerHTML =
    '<div class="cr-sp-head"><h2 id="cr-sp-title"></h2>' +
    '<button type="button" id="cr-sp-close">×</button></div>' +
    '<div id="cr-sp-meta"></div><div id="cr-sp-note"></div><div id="cr-sp-body"></div><div id="cr-sp-foot"></div>';
  document.body.appendChild(panel);

  const closePanel = () => {
    panel.hidden = true;
    if (opener && document.body.contains(opener)) opener.focus();
    opener = null;
  };
  panel.querySelector("#cr-sp-close").addEventListener("click", closePanel);
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && !panel.hidden) closePanel();
  });

  const openPanel = (cite, trigger) => {
    const copy = (sel, target) => {
      target.innerHTML = "";
      const node = cite.querySelector(sel);
      if (node) for (const child of node.childNodes) target.appendChild(child.cloneNode(true));
    };
    const title = panel.querySelector("#cr-sp-title");
    const n = cite.querySelector(".cr-n");
    const name = cite.querySelector(".cr-fname");
    title.textContent = `${n ? n.textContent : ""} ${name ? name.textContent : ""}`.trim();
    const meta = panel.querySelector("#cr-sp-meta");
    meta.innerHTML = "";
    const loc = cite.querySelector(".cr-loc");
    if (loc) meta.appendChild(loc.cloneNode(true));
    const badge = cite.querySelector(".cr-badge");
    if (badge) meta.appendChild(badge.cloneNode(true));
    copy(".cr-hl-note", panel.querySelector("#cr-sp-note"));
    const body = panel.querySelector("#cr-sp-body");
    copy(".cr-passage", body);
    body.className = cite.querySelector(".cr-passage.cr-code") ? "cr-code" : "";
    const foot = panel.querySelector("#cr-sp-foot");
    foot.innerHTML = "";
    const link = cite.querySelector("a.cr-file");
    if (link) {
      const a = link.cloneNode(true);
      a.id = "cr-sp-original";
      a.textContent = `${link.title} ↗`;
      foot.appendChild(a);
    } else {
      const note = cite.querySelector(".cr-note");
      if (note && note.textContent) foot.textContent = note.textContent;
    }
    panel.querySelector("#cr-sp-close").setAttribute("aria-label", WORDS[lang()].close);
    panel.hidden = false;
    opener = trigger;
    panel.querySelector("#cr-sp-close").focus();
    const first = body.querySelector("mark");
    if (first) first.scrollIntoView({ block: "center" });
  };

  document.addEventListener("click", (e) => {
    const ref = e.target.closest(".cr-ref");
    const open = e.target.closest(".cr-open");
    if (!ref && !open) {
      const toggle = e.target.closest("#cr-sidebar-toggle");
      if (toggle) {
        const bar = document.getElementById("cr-sidebar");
        const opened = bar.classList.toggle("cr-sidebar-open");
        toggle.setAttribute("aria-expanded", opened ? "true" : "false");
        // Opened, the sidebar sits at the top of the page: bring it into view.
        if (opened) bar.scrollIntoView({ block: "start" });
      }
      return;
    }
    e.preventDefault();
    if (open) {
      openPanel(open.closest(".cr-cite"), open);
      return;
    }
    const message = ref.closest(".message-content") || ref.closest("[data-testid='bot']") || document;
    const wanted = ref.textContent.trim();
    const cite = [...message.querySelectorAll(".cr-cite")].find((c) => (c.querySelector(".cr-n") || {}).textContent === wanted);
    if (cite) {
      const details = cite.closest("details");
      if (details) details.open = true;
      openPanel(cite, ref);
    }
  });

  // The sidebar toggle says whether it is open (for screen readers).
  // Gradio's upload box is named "Click to upload or drop files" but shows other words: name
  // it by what it shows, so speech input ("click Drop File Here") finds it (WCAG 2.5.3).
  const nameByText = () => {
    relabelUploads();
    for (const box of document.querySelectorAll(".upload-container[aria-label]")) {
      const text = box.textContent.replace(/\s+/g, " ").trim();
      if (text && box.getAttribute("aria-label") !== text) box.setAttribute("aria-label", text);
    }
  };
  window.crNameByText = nameByText;
  new MutationObserver(nameByText).observe(document.body, { childList: true, subtree: true, attributes: true, attributeFilter: ["aria-label"] });
  nameByText();

  const observer = new MutationObserver(() => {
    const toggle = document.getElementById("cr-sidebar-toggle");
    if (toggle) {
      toggle.setAttribute("aria-expanded", "false");
      toggle.setAttribute("aria-controls", "cr-sidebar");
      observer.disconnect();
    }
  });
  observer.observe(document.body, { childList: true, subtree: true });
}
