"""The UI's words in English and Chinese, in one table.

`t(lang, key, **values)` formats one string; a key missing in Chinese falls back to English,
and an unknown language falls back to English, so a missing translation never breaks a page.
"""

from __future__ import annotations

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
        "🔒 Uploads stay in this browser session only. Other students never see them, "
        "and they are deleted when you close this tab.",
        "zh": "支持 PDF、Word、PowerPoint、Markdown、文本、Python 和 Notebook，单个文件不超过 {max_mb} MB。  \n"
        "🔒 上传的文件只保存在当前浏览器会话中，其他同学看不到，关闭此页面后即被删除。",
    },
    "no_files_given": {"en": "No file received.", "zh": "没有收到文件。"},
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
    "origin_course": {"en": "course material", "zh": "课程资料"},
    "origin_upload": {"en": "your notes", "zh": "我的笔记"},
    "show_passage": {"en": "show passage", "zh": "查看原文"},
    "open_file": {"en": "Open the file at this place", "zh": "打开文件并定位到此处"},
    "warning": {"en": "Note", "zh": "提示"},
    "refused_hint": {
        "en": "Try rephrasing, widening the search (\"Course materials + my notes\"), or uploading the notes that cover it.",
        "zh": "可以换个说法、把检索范围改为“课程资料 + 我的笔记”，或上传相关的笔记。",
    },
    "empty_question": {"en": "Please type a question first.", "zh": "请先输入问题。"},
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
    # -- instructor ---------------------------------------------------------------------
    "instr_intro": {
        "en": "Instructor tools: rebuild a course index, see its statistics and content gaps, "
        "and run a batch of test questions. Enter the instructor token to unlock.",
        "zh": "教师工具：重建课程索引、查看索引统计和内容缺口、批量测试问题。请输入教师口令解锁。",
    },
    "instr_token": {"en": "Instructor token", "zh": "教师口令"},
    "instr_unlock": {"en": "Unlock", "zh": "解锁"},
    "instr_locked": {
        "en": "🔒 Locked. Enter the instructor token to use these tools.",
        "zh": "🔒 已锁定。请输入教师口令以使用这些工具。",
    },
    "instr_disabled": {
        "en": "🔒 Instructor tools are turned off on this server (INSTRUCTOR_TOKEN is not set).",
        "zh": "🔒 本服务器未启用教师工具（未设置 INSTRUCTOR_TOKEN）。",
    },
    "instr_wrong": {"en": "🔒 That token is not correct.", "zh": "🔒 口令不正确。"},
    "instr_unlocked": {"en": "🔓 Unlocked.", "zh": "🔓 已解锁。"},
    "instr_course": {"en": "Course", "zh": "课程"},
    "instr_rebuild_all": {"en": "Drop the index and rebuild from scratch", "zh": "清空索引并从头重建"},
    "instr_build": {"en": "Update index", "zh": "更新索引"},
    "instr_refresh": {"en": "Refresh statistics", "zh": "刷新统计"},
    "instr_stats": {"en": "Index statistics", "zh": "索引统计"},
    "instr_files": {"en": "Indexed files", "zh": "已索引文件"},
    "instr_cited": {"en": "Most-cited files", "zh": "被引用最多的文件"},
    "instr_gaps": {"en": "Content gaps: refused or thumbed-down questions", "zh": "内容缺口：未能回答或被点踩的问题"},
    "instr_batch": {"en": "Batch test questions (one per line)", "zh": "批量测试问题（每行一个）"},
    "instr_batch_run": {"en": "Run batch", "zh": "运行批量测试"},
    "instr_batch_results": {"en": "Batch results", "zh": "批量测试结果"},
    "instr_build_busy": {
        "en": "Another index build is running; try again when it has finished.",
        "zh": "另一个索引构建正在进行，请稍后再试。",
    },
    "instr_no_questions": {"en": "Type at least one question, one per line.", "zh": "请至少输入一个问题，每行一个。"},
}


def t(lang: str | None, key: str, **values) -> str:
    """The string for `key` in `lang` (English when missing), formatted with `values`."""
    entry = TEXT[key]
    text = entry.get(lang or "en") or entry["en"]
    return text.format(**values) if values else text


def normalize_lang(value: str | None) -> str:
    """'zh', 'zh-CN', '中文' -> 'zh'; anything else -> 'en'."""
    value = (value or "").strip().lower()
    return "zh" if value.startswith("zh") or value == "中文" else "en"
