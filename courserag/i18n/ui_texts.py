"""The UI's words in English and Chinese, in one table (the Instructor tab's words are in
texts_instructor.py and join it here).

`t(lang, key, **values)` formats one string; a key missing in Chinese falls back to English,
and an unknown language falls back to English, so a missing translation never breaks a page.
Tests check that every key has a Chinese text.
"""

from __future__ import annotations

from courserag.i18n.catalog_texts import CATALOG_TEXT
from courserag.i18n.instructor_texts import INSTRUCTOR_TEXT

LANG_CHOICES = [("English", "en"), ("中文", "zh")]

TEXT: dict[str, dict[str, str]] = {
    # -- header -------------------------------------------------------------------------
    "title": {"en": "Course Study Assistant", "zh": "课程学习助手"},
    "tagline": {
        "en": "Ask about your course materials and your own notes. Every answer cites its sources.",
        "zh": "就课程资料和你自己的笔记提问。每个回答都会注明出处。",
    },
    "tab_study": {"en": "Study", "zh": "学习"},
    "tab_instructor": {"en": "Instructor", "zh": "教师"},
    # -- course -------------------------------------------------------------------------
    "course": {"en": "Course", "zh": "课程"},
    "language_en": {"en": "English", "zh": "英文"},
    "language_zh": {"en": "Chinese", "zh": "中文"},
    "course_language": {"en": "Taught in {language}", "zh": "授课语言：{language}"},
    "index_ready": {"en": "{chunks} passages indexed from {files} files", "zh": "已索引 {files} 个文件，共 {chunks} 个段落"},
    "index_missing": {
        "en": "The course index has not been built yet, so answers come from your notes only. "
        "Ask an instructor to run `python build_weaviate_index.py --course {course_id}` "
        "(or rebuild it from the Instructor tab).",
        "zh": "本课程的索引尚未建立，目前只能根据你上传的笔记回答。"
        "请教师运行 `python build_weaviate_index.py --course {course_id}`（或在“教师”标签页中重建索引）。",
    },
    "index_unavailable": {
        "en": "The course knowledge base cannot be reached right now ({detail}); answers may come from your notes only.",
        "zh": "暂时无法连接课程知识库（{detail}），回答可能只来自你的笔记。",
    },
    "switched": {
        "en": "Now searching **{course}** course materials. {notes}",
        "zh": "现在检索 **{course}** 的课程资料。{notes}",
    },
    "switched_notes_kept": {
        "en": "Your {count} uploaded file(s) are kept and still searched.",
        "zh": "你上传的 {count} 个文件仍然保留并会被检索。",
    },
    "switched_no_notes": {"en": "", "zh": ""},
    # -- scope --------------------------------------------------------------------------
    "scope": {"en": "Search in", "zh": "检索范围"},
    "scope_both": {"en": "Course materials + my notes", "zh": "课程资料 + 我的笔记"},
    "scope_course": {"en": "Course materials", "zh": "课程资料"},
    "scope_notes": {"en": "My notes", "zh": "我的笔记"},
    # -- uploads ------------------------------------------------------------------------
    "notes_heading": {"en": "Your notes", "zh": "我的笔记"},
    "upload_label": {"en": "Upload notes", "zh": "上传笔记"},
    "upload_progress": {"en": "Reading {name} ({i}/{n})", "zh": "正在读取 {name}（{i}/{n}）"},
    "upload_done": {"en": "Done", "zh": "完成"},
    "no_notes": {"en": "No notes uploaded yet.", "zh": "还没有上传笔记。"},
    "notes_col_file": {"en": "File", "zh": "文件"},
    "notes_col_read": {"en": "Read", "zh": "读取"},
    "notes_col_passages": {"en": "Passages", "zh": "段落"},
    "remove_label": {"en": "Select notes to remove", "zh": "选择要删除的笔记"},
    "remove_button": {"en": "Remove selected", "zh": "删除所选"},
    "removed": {"en": "Removed {names}. Answers no longer use it.", "zh": "已删除 {names}，回答将不再引用它。"},
    "nothing_selected": {"en": "Select a file to remove first.", "zh": "请先选择要删除的文件。"},
    "privacy": {
        "en": "PDF, Word, PowerPoint, Markdown, text, Python and notebooks, up to {max_mb} MB each.  \n"
        "🔒 Uploads stay in this browser session only, and other students never see them. "
        "Reloading the page keeps them; they are deleted soon after you close this tab, "
        "or after {minutes} minutes without activity.",
        "zh": "支持 PDF、Word、PowerPoint、Markdown、文本、Python 和 Notebook，单个文件不超过 {max_mb} MB。  \n"
        "🔒 上传的文件只保存在当前浏览器会话中，其他同学看不到。刷新页面不会丢失；关闭此页面不久后，"
        "或连续 {minutes} 分钟没有操作后，文件即被删除。",
    },
    "no_files_given": {"en": "No file received.", "zh": "没有收到文件。"},
    "upload_crashed": {"en": "✗ {name}: the file could not be read ({kind})", "zh": "✗ {name}：无法读取该文件（{kind}）"},
    "status_reading": {"en": "reading…", "zh": "正在读取…"},
    "status_indexing": {"en": "indexing… {done} of {total} {unit}", "zh": "正在建立索引… {done}/{total} {unit}"},
    "status_ready": {"en": "ready", "zh": "就绪"},
    "notes_col_status": {"en": "Status", "zh": "状态"},
    "remove_file": {"en": "Remove {name}", "zh": "删除 {name}"},
    "sidebar_toggle": {"en": "Course and notes", "zh": "课程与笔记"},
    # A reload (F5) brings back the conversation and notes from the browser's storage.
    "restored": {"en": "Welcome back: your conversation and notes are as you left them.", "zh": "欢迎回来：你的对话和笔记都已恢复。"},
    "restored_notes_cleared": {
        "en": "Welcome back: your conversation is restored, but your uploaded notes ({files}) were cleared "
        "after {minutes} minutes without activity or a server restart. Upload them again to search them.",
        "zh": "欢迎回来：对话已恢复，但你上传的笔记（{files}）因 {minutes} 分钟没有活动或服务器重启已被清除。"
        "如需检索，请重新上传。",
    },
    "session_expired": {
        "en": "Your earlier conversation and notes were cleared: more than {minutes} minutes passed without activity.",
        "zh": "你之前的对话和笔记已被清除：已经超过 {minutes} 分钟没有活动。",
    },
    # -- chat ---------------------------------------------------------------------------
    "chat_label": {"en": "Conversation", "zh": "对话"},
    "chat_placeholder": {
        "en": "### Ask a question about the course\nAnswers cite the course materials and your notes as [1], [2] …",
        "zh": "### 就课程提一个问题\n回答会以 [1]、[2] … 标注引用的课程资料和你的笔记。",
    },
    "question_placeholder": {"en": "Type your question and press Enter", "zh": "输入问题后按回车"},
    "question_label": {"en": "Your question", "zh": "你的问题"},
    "send": {"en": "Send", "zh": "发送"},
    "clear": {"en": "Clear conversation", "zh": "清空对话"},
    "examples": {"en": "Try asking", "zh": "可以试试问"},
    "thinking": {"en": "Searching the materials …", "zh": "正在检索资料 …"},
    "sources": {"en": "Sources", "zh": "引用来源"},
    "also_consulted": {"en": "Also consulted, not cited ({count})", "zh": "参考过但未引用的来源（{count}）"},
    "open_passage": {"en": "Show the cited passage", "zh": "查看引用的原文"},
    "open_original_page": {"en": "Open the original at {where}", "zh": "打开原文件的{where}"},
    "open_original": {"en": "Open the original file", "zh": "打开原文件"},
    "original_link": {"en": "original", "zh": "原文件"},
    "download_original": {"en": "Download the original file", "zh": "下载原文件"},
    "upload_not_kept": {
        "en": "Uploaded files are not kept on the server, so the passage is shown here.",
        "zh": "上传的文件不会保存在服务器上，因此在这里显示这段原文。",
    },
    "panel_close": {"en": "Close", "zh": "关闭"},
    "panel_highlight": {
        "en": "Highlighted: the sentences the answer draws on.",
        "zh": "高亮部分是回答所依据的句子。",
    },
    "origin_course": {"en": "course material", "zh": "课程资料"},
    "origin_upload": {"en": "your notes", "zh": "我的笔记"},
    "show_passage": {"en": "show passage", "zh": "查看原文"},
    "open_file": {"en": "Open the file at this place", "zh": "打开文件并定位到此处"},
    "warning": {"en": "Note", "zh": "提示"},
    # The hint under a refusal depends on what was searched: never "widen the search" when
    # it already covered both.
    "refused_hint_both": {
        "en": "Try rephrasing, or upload the notes that cover it.",
        "zh": "可以换个说法，或上传相关的笔记。",
    },
    "refused_hint_course": {
        "en": "Try rephrasing, or search \"Course materials + my notes\" if your own notes cover it.",
        "zh": "可以换个说法；如果你的笔记里有相关内容，可以把检索范围改为“课程资料 + 我的笔记”。",
    },
    "refused_hint_notes": {
        "en": "Try rephrasing, or search \"Course materials + my notes\" to include the course materials.",
        "zh": "可以换个说法，或把检索范围改为“课程资料 + 我的笔记”，把课程资料也包括进来。",
    },
    "pending_note": {
        "en": "⏳ Still being indexed, so not searched for this answer: {files}. Ask again once it shows as ready.",
        "zh": "⏳ 以下文件仍在建立索引，本次回答没有检索它们：{files}。等它们显示为就绪后再问一次。",
    },
    "empty_question": {"en": "Please type a question first.", "zh": "请先输入问题。"},
    "feedback_wrong": {"en": "The answer is wrong", "zh": "回答有误"},
    "feedback_marked_wrong": {
        "en": "Thanks: marked as wrong, so the course's instructors will see this question. A comment says what is right.",
        "zh": "谢谢：已标记为回答有误，课程教师会看到这个问题。可以在评论中说明正确的内容。",
    },
    "question_too_long": {
        "en": "Your question is {chars} characters long; please shorten it to {limit} or fewer. It is still in the box.",
        "zh": "你的问题有 {chars} 个字符，请缩短到 {limit} 个字符以内。问题仍保留在输入框中。",
    },
    "no_notes_to_search": {
        "en": "You have not uploaded any notes yet, so there was nothing to search in \"My notes\". "
        "Upload your notes, or search \"Course materials\".",
        "zh": "你还没有上传笔记，“我的笔记”中没有可检索的内容。请先上传笔记，或把检索范围改为“课程资料”。",
    },
    "error": {"en": "Something went wrong: {detail}", "zh": "出错了：{detail}"},
    "internal_error": {"en": "an internal error ({kind})", "zh": "内部错误（{kind}）"},
    # -- feedback -----------------------------------------------------------------------
    "feedback_thanks_up": {
        "en": "Thanks for the 👍. Anything to add? (optional)",
        "zh": "感谢你的 👍！还有什么想补充的吗？（可选）",
    },
    "feedback_thanks_down": {
        "en": "Thanks for the 👎. What was wrong or missing? (optional)",
        "zh": "感谢你的 👎！哪里有问题或缺了什么？（可选）",
    },
    "feedback_comment": {"en": "Comment", "zh": "评论"},
    "feedback_send": {"en": "Send comment", "zh": "提交评论"},
    "feedback_saved": {"en": "Thanks, your comment was saved.", "zh": "谢谢，你的评论已保存。"},
    "feedback_removed": {"en": "Your rating was withdrawn.", "zh": "你的评价已撤回。"},
    "feedback_throttled": {
        "en": "Too much feedback from your address in the last minutes; it was not saved. Please try again later.",
        "zh": "你的地址在最近几分钟内提交的反馈过多，本次未保存，请稍后再试。",
    },
    "feedback_about": {"en": "About the answer to “{question}”", "zh": "关于“{question}”的回答"},
}


TEXT.update(INSTRUCTOR_TEXT)
TEXT.update(CATALOG_TEXT)


def t(lang: str | None, key: str, **values) -> str:
    """The string for `key` in `lang` (English when missing), formatted with `values`."""
    entry = TEXT[key]
    text = entry.get(lang or "en") or entry["en"]
    return text.format(**values) if values else text


def normalize_lang(value: str | None) -> str:
    """'zh', 'zh-CN', '中文' -> 'zh'; anything else -> 'en'."""
    value = (value or "").strip().lower()
    return "zh" if value.startswith("zh") or value == "中文" else "en"
