() => {
  // The page's own behaviour (courserag/ui/client.js, run once when the page loads):
  // the source panel, the sidebar toggle on narrow screens, and the page language.
  if (window.crReady) return;
  window.crReady = true;
  // Gradio's own words that do not follow a locale change made after the page loaded
  // (the upload box draws them once): the text catalog's ui.gradio_* keys, filled in by
  // ui/theme.client_js.
  const WORDS = __CR_GRADIO_WORDS__;
  // The rules for what lies outside Gradio's container (ui/theme.PAGE_CSS).
  const pageCss = document.createElement("style");
  pageCss.textContent = __CR_PAGE_CSS__;
  document.head.appendChild(pageCss);
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
    sayLiveAll();
  };

  // Gradio's own names that its zh-CN table lacks (buttons' accessible names and titles,
  // the footer's "Runs"), said in Chinese while the page is; each English original is kept
  // on the element (data-cr-en-*) so a switch back restores it, and a new English value
  // Gradio sets (Copy -> Copied) is taken as the new original.
  const GRADIO_ZH = {
    "Like": "赞", "Dislike": "踩", "Liked": "已赞", "Disliked": "已踩", "Copy message": "复制消息", "Copied message": "已复制消息",
    "Copy": "复制", "Copied": "已复制", "Clear": "清除", "chatbot conversation": "聊天对话",
    "Table actions": "表格操作", "Copy table data": "复制表格数据", "Fullscreen": "全屏",
    "Exit fullscreen mode": "退出全屏", "Exit fullscreen": "退出全屏", "Sort ascending": "升序排列",
    "Sort descending": "降序排列", "Clear sort": "取消排序", "Filter": "筛选", "Runs": "运行记录",
    "View runs saved in this browser": "查看此浏览器中保存的运行记录",
    "Gradio footer navigation": "Gradio 页脚导航", "Loading response": "正在生成回答",
  };
  const GRADIO_PREFIX_ZH = [["bot's message: ", "助手的消息："], ["user's message: ", "你的消息："]];
  const toZh = (value) => {
    if (GRADIO_ZH[value]) return GRADIO_ZH[value];
    for (const [en, zh] of GRADIO_PREFIX_ZH) {
      // Gradio puts the message's raw HTML in its name: its text is what should be said
      if (value.startsWith(en)) {
        const text = value.slice(en.length).replace(/<[^>]*>/g, " ").replace(/&#10;|&nbsp;/g, " ");
        return zh + text.replace(/\s+/g, " ").trim().slice(0, 200);
      }
    }
    return value;
  };
  let saidInChinese = false;
  const sayGradio = () => {
    const zh = lang() === "zh";
    if (!zh && !saidInChinese) return;
    saidInChinese = zh;
    for (const el of document.querySelectorAll("[aria-label], [title]")) {
      for (const name of ["aria-label", "title"]) {
        const value = el.getAttribute(name);
        if (!value) continue;
        const key = `data-cr-en-${name}`;
        const stored = el.getAttribute(key);
        const original = stored !== null && value === toZh(stored) ? stored : value;
        const want = zh ? toZh(original) : original;
        if (want !== value) el.setAttribute(name, want);
        if (zh && want !== original) el.setAttribute(key, original);
        else if (stored !== null) el.removeAttribute(key);
      }
    }
    for (const footer of document.querySelectorAll("footer")) {
      const walker = document.createTreeWalker(footer, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = node.nodeValue.trim();
        const original = node.crEnglish && text === GRADIO_ZH[node.crEnglish] ? node.crEnglish : text;
        const want = zh && GRADIO_ZH[original] ? GRADIO_ZH[original] : original;
        if (want !== text) node.nodeValue = node.nodeValue.replace(text, want);
        node.crEnglish = want !== original ? original : undefined;
      }
    }
  };

  // Gradio's status words, in its progress announcer (a live region) and in the tracker drawn
  // over an output that waits, come in the browser's locale or in English only (its queue
  // position has no Chinese, and "common.complete" comes as its bare key): said here in the
  // page's language instead. Each phrase is a template in both languages; {0}, {1} are the
  // numbers it carries (a queue position and length).
  const STATUS_PHRASES = [
    { en: "Loading", zh: "加载中", keys: ["common.loading"] },
    { en: "Complete", zh: "完成", keys: ["common.complete"] },
    { en: "Error", zh: "错误", keys: ["common.error"] },
    { en: "Loading content", zh: "正在加载内容" },  // the chat's pending answer
    { en: "In queue: {0} of {1}", zh: "排队中：第 {0} 位，共 {1} 位" },
    { en: "queue: {0}/{1} |", zh: "排队：{0}/{1} |" },  // the tracker over a waiting output
    { en: "processing |", zh: "处理中 |" },
  ];
  const asPattern = (template) =>
    new RegExp(`^${template.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/\\\{\d\\\}/g, "(\\d+)")}$`);
  const STATUS_PATTERNS = STATUS_PHRASES.flatMap((phrase) =>
    [phrase.en, phrase.zh, ...(phrase.keys || [])].map((text) => [asPattern(text), phrase]));
  const inPageLanguage = (text) => {
    for (const [pattern, phrase] of STATUS_PATTERNS) {
      const numbers = text.match(pattern);
      if (numbers) return phrase[lang()].replace(/\{(\d)\}/g, (_, i) => numbers[Number(i) + 1]);
    }
    return null;
  };
  // The chat log is a live region too, but what it holds is the conversation: a learner's
  // "Error" stays theirs. Its pending answer is a status region of its own, inside it.
  const STATUS_REGIONS = "[aria-live], [data-testid='status-tracker']";
  const inStatusRegion = (node) => {
    const region = node.parentElement && node.parentElement.closest(STATUS_REGIONS);
    return Boolean(region) && region.getAttribute("role") !== "log";
  };
  const sayLive = (node) => {
    const text = (node.nodeValue || "").trim();
    const want = text && inStatusRegion(node) ? inPageLanguage(text) : null;
    if (want !== null && want !== text) node.nodeValue = node.nodeValue.replace(text, want);
  };
  const sayLiveIn = (root) => {
    const regions = root.closest(STATUS_REGIONS) ? [root] : root.querySelectorAll(STATUS_REGIONS);
    for (const region of regions) {
      const walker = document.createTreeWalker(region, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) sayLive(node);
    }
  };
  const sayLiveAll = () => sayLiveIn(document.body);
  new MutationObserver((records) => {
    for (const record of records) {
      if (record.type === "characterData") sayLive(record.target);
      for (const node of record.addedNodes) {
        if (node.nodeType === 3) sayLive(node);
        else if (node.nodeType === 1) sayLiveIn(node);  // a whole new region: the chat's pending answer
      }
    }
  }).observe(document.body, { childList: true, subtree: true, characterData: true });

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
    document.body.classList.remove("cr-sp-open");
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
    if (loc) {
      // In the answer the locator follows the file name ("a.pdf · page 4"); here it starts a line.
      const place = loc.cloneNode(true);
      place.textContent = place.textContent.replace(/^\s*·\s*/, "");
      meta.appendChild(place);
    }
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
    document.body.classList.add("cr-sp-open");  // on a wide screen the page narrows beside it (theme.py)
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

  // Gradio names each chat message by its raw HTML, the hidden passages of its sources
  // included: a screen reader read out markup. Named here by the text the message shows, in
  // the page's language, again whenever that text changes (Gradio draws it after the name).
  const messageNames = new WeakMap();
  const shownText = (el) => {
    const parts = [];
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (!parent) continue;
      const hidden = parent.closest("[hidden]"), folded = parent.closest("details:not([open])");
      if (hidden && el.contains(hidden)) continue;  // a source's passage, said in the source panel
      if (folded && el.contains(folded) && !parent.closest("summary")) continue;  // "also consulted", folded
      parts.push(node.nodeValue);
    }
    return parts.join(" ").replace(/\s+/g, " ").trim();
  };
  const nameMessages = () => {
    for (const el of document.querySelectorAll("#cr-chat [aria-label]")) {
      const label = el.getAttribute("aria-label");
      const role = GRADIO_PREFIX_ZH.find(([en, zh]) => label.startsWith(en) || label.startsWith(zh));
      if (!role) continue;
      const seen = messageNames.get(el), text = el.textContent, language = lang();
      if (seen && seen.label === label && seen.text === text && seen.language === language) continue;
      const want = role[language === "zh" ? 1 : 0] + shownText(el);
      messageNames.set(el, { label: want, text, language });
      if (label !== want) el.setAttribute("aria-label", want);
    }
  };
  // The sidebar toggle says whether it is open (for screen readers).
  // Gradio's upload box is named "Click to upload or drop files" but shows other words: name
  // it by what it shows, so speech input ("click Drop File Here") finds it (WCAG 2.5.3).
  const nameByText = () => {
    relabelUploads();
    nameMessages();
    sayGradio();
    for (const box of document.querySelectorAll(".upload-container[aria-label]")) {
      const text = box.textContent.replace(/\s+/g, " ").trim();
      if (text && box.getAttribute("aria-label") !== text) box.setAttribute("aria-label", text);
    }
  };
  window.crNameByText = nameByText;
  new MutationObserver(nameByText).observe(document.body, { childList: true, subtree: true, attributes: true, attributeFilter: ["aria-label", "title"] });
  nameByText();

  // The question box takes the focus when the page opens, without scrolling to it. Gradio's
  // autofocus calls a plain focus(), which scrolls: on a short screen (1366 x 700) the page
  // opened ~263 px down at the question box, the course picker above it out of sight.
  const focusQuestion = () => {
    const box = document.querySelector("#cr-question textarea");
    if (box && (!document.activeElement || document.activeElement === document.body)) box.focus({ preventScroll: true });
    return Boolean(box);
  };
  if (!focusQuestion()) {
    const waiting = new MutationObserver(() => focusQuestion() && waiting.disconnect());
    waiting.observe(document.body, { childList: true, subtree: true });
  }

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
