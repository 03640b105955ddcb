"""The Instructor tab's words in English and Chinese (merged into texts.TEXT)."""

from __future__ import annotations

INSTRUCTOR_TEXT: dict[str, dict[str, str]] = {
    "instr_intro": {
        "en": "Instructor tools: manage a course's files and details, rebuild its index, see its statistics, "
        "feedback and content gaps, and run a batch of test questions. Enter the instructor token to unlock.",
        "zh": "教师工具：管理课程文件和课程信息、重建索引、查看统计、反馈和内容缺口，以及批量测试问题。请输入教师口令解锁。",
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
    "instr_wrong_course": {
        "en": "🔒 That token does not unlock this course.",
        "zh": "🔒 该口令不能管理这门课程。",
    },
    "instr_unlocked": {"en": "🔓 Unlocked.", "zh": "🔓 已解锁。"},
    "instr_course": {"en": "Course", "zh": "课程"},
    "instr_build": {"en": "Update index", "zh": "更新索引"},
    "instr_rebuild": {"en": "Rebuild from scratch…", "zh": "从头重建…"},
    "instr_rebuild_question": {
        "en": "Rebuild **{course}** from scratch? Every file ({files}) is read and embedded again. "
        "Learners keep getting answers from the current index until the new one is complete; then it "
        "replaces the old one in one step.",
        "zh": "确定要从头重建 **{course}** 的索引吗？所有文件（{files} 个）都会重新读取和嵌入。"
        "在新索引完成之前，学生仍然使用当前索引获得回答；完成后一次性切换到新索引。",
    },
    "instr_rebuild_yes": {"en": "Yes, rebuild", "zh": "确定重建"},
    "instr_cancel": {"en": "Cancel", "zh": "取消"},
    "instr_refresh": {"en": "Refresh statistics", "zh": "刷新统计"},
    "instr_stats": {"en": "Index statistics", "zh": "索引统计"},
    "instr_store": {"en": "Store in use", "zh": "当前存储"},
    "instr_fallback": {"en": "Fallback store", "zh": "备用存储"},
    "instr_course_counts": {"en": "{files} files, {chunks} passages indexed", "zh": "已索引 {files} 个文件，共 {chunks} 个段落"},
    "instr_answers": {"en": "Answers", "zh": "回答方式"},
    "instr_mode_llm": {"en": "LLM {model}", "zh": "大语言模型 {model}"},
    "instr_mode_extractive": {"en": "extractive (no LLM configured)", "zh": "摘录式（未配置大语言模型）"},
    "instr_embedding": {"en": "Embedding model", "zh": "嵌入模型"},
    "instr_sessions": {"en": "Learner sessions with uploads", "zh": "有上传文件的学生会话"},
    "instr_damaged": {"en": "**{count} damaged:** {names} — build to repair", "zh": "**{count} 个文件已损坏：** {names}——请重新构建以修复"},
    "instr_progress": {"en": "Indexing {done} of {total}: {name}", "zh": "正在建立索引 {done}/{total}：{name}"},
    "instr_build_summary": {
        "en": "{course}: {files} files, {indexed} indexed ({chunks} chunks), {skipped} unchanged, "
        "{deleted} removed, {failed} failed, {seconds:.1f} s",
        "zh": "{course}：共 {files} 个文件，已索引 {indexed} 个（{chunks} 个段落），{skipped} 个未变，"
        "{deleted} 个已删除，{failed} 个失败，用时 {seconds:.1f} 秒",
    },
    "instr_build_failed_file": {"en": "failed: {file}: {reason}", "zh": "失败：{file}：{reason}"},
    "instr_build_kept": {
        "en": "no file could be indexed, so the previous index was kept",
        "zh": "没有任何文件能建立索引，因此保留了原来的索引",
    },
    "instr_build_busy": {
        "en": "Another index build is running; try again when it has finished.",
        "zh": "另一个索引构建正在进行，请稍后再试。",
    },
    # Course files
    "instr_files_heading": {"en": "Course files", "zh": "课程文件"},
    "instr_files": {"en": "Files in the course folder", "zh": "课程文件夹中的文件"},
    "instr_add_files": {"en": "Add files to the course", "zh": "向课程添加文件"},
    "instr_remove_pick": {"en": "File to remove", "zh": "要删除的文件"},
    "instr_remove": {"en": "Remove file…", "zh": "删除文件…"},
    "instr_remove_question": {
        "en": "Remove **{name}** from the course folder and from the index? Learners will no longer get answers from it.",
        "zh": "确定要从课程文件夹和索引中删除 **{name}** 吗？学生将不再从中获得回答。",
    },
    "instr_remove_yes": {"en": "Yes, remove", "zh": "确定删除"},
    "instr_removed": {"en": "✓ {name} was removed from the course.", "zh": "✓ 已从课程中删除 {name}。"},
    "instr_nothing_picked": {"en": "Choose a file first.", "zh": "请先选择一个文件。"},
    "col_file": {"en": "file", "zh": "文件"},
    "col_size": {"en": "size", "zh": "大小"},
    "col_passages": {"en": "passages", "zh": "段落"},
    "col_state": {"en": "state", "zh": "状态"},
    "state_indexed": {"en": "indexed", "zh": "已索引"},
    "state_not_indexed": {"en": "not indexed", "zh": "未索引"},
    # Course details
    "instr_details": {"en": "Course details (what learners see)", "zh": "课程信息（学生可见）"},
    "instr_name": {"en": "Name", "zh": "名称"},
    "instr_description": {"en": "Description", "zh": "简介"},
    "instr_examples": {"en": "Example questions (one per line, up to 4)", "zh": "示例问题（每行一个，最多 4 个）"},
    "instr_save": {"en": "Save course details", "zh": "保存课程信息"},
    "instr_saved": {
        "en": "✓ Saved. Learners see the new name, description and example questions.",
        "zh": "✓ 已保存。学生将看到新的名称、简介和示例问题。",
    },
    # Feedback and gaps
    "instr_cited": {"en": "Most-cited files (feedback counts only answers that cite the file)", "zh": "被引用最多的文件（只统计引用了该文件的回答的评价）"},
    "col_times_cited": {"en": "times cited", "zh": "被引用次数"},
    "instr_gaps": {
        "en": "Content gaps: refused or thumbed-down questions, grouped",
        "zh": "内容缺口：未能回答或被点踩的问题（已合并相同问题）",
    },
    "col_question": {"en": "question", "zh": "问题"},
    "col_times": {"en": "times", "zh": "次数"},
    "col_refused": {"en": "refused", "zh": "未能回答"},
    "instr_not_persistent": {
        "en": "This Space has no persistent storage for {places}: files added here, course edits and feedback "
        "are lost when it restarts (see the README, \"Deploying as a Space\").",
        "zh": "此 Space 没有为 {places} 配置持久存储：在这里添加的文件、课程信息的修改和反馈会在重启后丢失"
        "（见 README 的“Deploying as a Space”一节）。",
    },
    "col_wrong": {"en": "marked wrong", "zh": "被标为错误"},
    "col_last": {"en": "last asked (UTC)", "zh": "最近一次（UTC）"},
    "col_comments": {"en": "comments", "zh": "评论"},
    "col_files": {"en": "files cited", "zh": "引用的文件"},
    "instr_gap_pick": {"en": "Gaps to mark as resolved", "zh": "要标记为已解决的缺口"},
    "instr_gap_resolve": {"en": "Mark as resolved", "zh": "标记为已解决"},
    "instr_gap_resolved": {
        "en": "✓ Marked as resolved; a gap comes back if the question is asked again.",
        "zh": "✓ 已标记为已解决；如果再有人问同样的问题，它会重新出现。",
    },
    # Batch tests
    "instr_batch": {"en": "Batch test questions (one per line)", "zh": "批量测试问题（每行一个）"},
    "instr_batch_run": {"en": "Run batch", "zh": "运行批量测试"},
    "instr_batch_results": {"en": "Batch results", "zh": "批量测试结果"},
    "instr_no_questions": {"en": "Type at least one question, one per line.", "zh": "请至少输入一个问题，每行一个。"},
    "col_result": {"en": "result", "zh": "结果"},
    "col_answer": {"en": "answer", "zh": "回答"},
    "col_sources": {"en": "sources", "zh": "来源"},
    "result_answered": {"en": "answered", "zh": "已回答"},
    "result_refused": {"en": "refused", "zh": "未能回答"},
    "result_error": {"en": "error", "zh": "出错"},
    "result_warning": {"en": "(warning)", "zh": "（有警告）"},
}
