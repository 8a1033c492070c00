"""The Russian catalog, errors: what a refused or failed request says (the reason in ``ErrorData.message``, the
sentence around it in ``ErrorData.text``), the MCP server's refusals when it has no model, and ``council ask``'s
usage errors (see ``council.words``)."""

from __future__ import annotations

WORDS: dict[str, str | tuple[str, ...]] = {
    # --- the sentence of every error (present/errors) ------------------------------------------------------------
    "error.what.validation": "Совет отклонил запрос",
    "error.what.permission": "Совету не разрешено это делать",
    "error.what.internal": "Совет не справился",
    "error.head": "{what}: {why}",
    "error.no_reason": "причина не указана.",
    "error.todo.validation": "Исправьте запрос и вызовите снова.",
    "error.todo.permission": "Не повторяйте как есть: попросите пользователя разрешить это (настройка, доверенная "
                             "рабочая область) или обойдитесь без этого.",
    "error.todo.internal": "Повторный вызов может сработать; если снова не выйдет, подробности пользователь найдёт в "
                           "«Council: Show Logs».",
    "error.reason.cancelled": "Запрос отменён; вызывайте снова, только если результат всё ещё нужен.",
    "error.reason.expired": "Сессии больше нет; начните новую с тем же вопросом.",
    "error.reason.no_consent": "Не вызывайте снова, пока пользователь не разрешит модель (или не выберет другую).",
    "error.reason.shutdown": "Совет завершает работу; вызовите снова, когда он перезапустится.",
    "error.reason.too_large": "Отправьте меньше и вызовите снова.",
    "error.reason.too_long": "Отправьте меньше и вызовите снова.",
    "error.more": " и ещё {count}",
    "error.fix": "Исправьте {fields}{more} и вызовите снова.",
    "error.valid": "Допустимо: {values}{more}.",
    "error.tool": "Ошибка Council ({code}): {message}",
    # --- why a session refused a request (service, session/*) -----------------------------------------------------
    "error.no_open_question": "нет вопроса, который ждёт ответа",
    "error.no_session": "сессии ещё нет: сначала задайте совету вопрос",
    "error.busy": "совет ещё работает над этой сессией; дождитесь его, остановите или отмените сессию",
    "error.already_completed": "сессия уже завершена",
    "error.unknown_session": "неизвестная сессия (возможно, её срок истёк)",
    "error.expired": "срок сессии истёк: она закрыта после долгого простоя или чтобы освободить место для новых; "
                     "начните новую",
    "error.too_many_sessions": "слишком много сессий одновременно (не больше {limit}); дождитесь окончания одной или "
                               "отмените её",
    "error.no_problem": "новой сессии нужен вопрос для обсуждения",
    "error.unknown_personas": "неизвестные персоны: {names}; доступные персоны: {valid}",
    "error.persona_gone": "персона «{persona}» больше не загружена",
    "error.not_active_question": "этот вопрос сейчас не задан",
    "error.answer_needs_text": "для ответа нужен текст или вариант",
    "error.answer_empty": "ответ пуст",
    "error.unknown_question": "неизвестный вопрос",
    "error.unknown_choice": "неизвестный вариант",
    "error.more_only_clarifying": "дополнительные вопросы можно задать, только пока совет уточняет вопрос",
    "error.rounds_capped": "уточнение ограничено: не больше {rounds}",
    "rounds_upto": ("{n} раунда", "{n} раундов", "{n} раундов"),
    "error.extend_max": "дебаты уже продлены до предела: {cycles}",
    "error.extend_only_limit": "продлить можно только дебаты, остановленные на пределе циклов",
    "error.resume_completed": "сессия завершена, продолжать нечего: задайте новый вопрос (или продлите дебаты, "
                              "остановленные на пределе циклов)",
    "error.resume_cancelled": "сессия отменена, её нельзя продолжить: задайте вопрос снова, чтобы начать новую сессию",
    "error.follow_up_not_yet": "на дополнительные вопросы совет отвечает после своего ответа",
    "error.reopen_not_yet": "дебаты можно возобновить после ответа совета",
    "error.follow_up_empty": "в дополнительном вопросе нет вопроса",
    "error.reopen_empty": "чтобы возобновить дебаты, скажите, что взвесить",
    "error.revisit_not_yet": "к вопросу можно вернуться после ответа совета",
    "error.revisit_not_skipped": "вернуться можно только к пропущенному или отложенному вопросу; у этого статус "
                                 "«{state}»",
    "error.max_cycles": "дебаты исчерпали предел: {cycles}",
    # --- the consult tools (consult/*, mcpserver) -------------------------------------------------------------------
    "error.unknown_persona": "неизвестная персона {name}",
    "error.consult_cancelled": "консультация отменена",
    "sampling.fix": "запустите `council mcp` со своей моделью: `--provider openai --base-url URL --model NAME` (любой "
                    "OpenAI-совместимый сервер), `--provider ollama --model NAME` или COUNCIL_PROVIDER / "
                    "COUNCIL_MODEL в его окружении",
    "sampling.no_model": "У совета нет модели: этот MCP-клиент не предлагает sampling (свою модель), провайдер не "
                         "настроен, Ollama не отвечает на {url}, а встроенная модель недоступна ({embedded}). Что "
                         "сделать: используйте MCP-клиент с sampling (VS Code его предлагает), или {fix}, или "
                         "установите встроенную модель (pip install 'council[local]').",
    "sampling.refused": "MCP-клиент не дал совету использовать свою модель ({said}). Что сделать: разрешите это — в "
                        "VS Code ответьте Allow на запрос или задайте для этого сервера `chat.mcp.serverSampling` "
                        "(у расширения Council это \"Council: Council\") со значением `allowedDuringChat: true` и "
                        "`allowedModels` для выбора моделей — или {fix}.",
    "sampling.required": "У совета нет модели: `council mcp` запущен с `--provider client` (только модель "
                         "MCP-клиента), а этот клиент не предлагает sampling. Что сделать: используйте MCP-клиент с "
                         "sampling (VS Code его предлагает) или {fix}.",
    # --- council ask's usage errors (cli/ask_args) ------------------------------------------------------------------
    "usage.error": "council ask: ошибка: {message}",
    "usage.between": "{flag} должен быть от {low} до {high}",
    "usage.max_calls": "--max-calls должен быть от 3 до 1000 (3: одна персона, варианты, ответ)",
    "usage.models": "--models требует спецификаций provider:model, например openai:gpt-4o,ollama:qwen2.5:7b",
    "usage.too_many_models": "--models принимает не больше {limit} спецификаций, по одной на место (в совете не "
                             "больше 12 персон); указано {given}",
    "usage.needs": "{flag} требует {needed}",
    "usage.needs_name": "--personas требует хотя бы одного имени",
    "usage.memory": "--memory требует --workspace (память хранится в <workspace>/.council/)",
    "usage.no_evidence": "--no-evidence требует --workspace (без неё советники ничего не читают)",
    "usage.empty_question": "вопрос пуст",
    "usage.no_question": "вопрос не задан (передайте его аргументом или через stdin)",
    "usage.transcript_file": "не удаётся записать стенограммы в {folder}: это файл",
    "usage.transcript_not_folder": "не удаётся записать стенограммы в {folder}: {path} — не папка",
    "usage.transcript_not_writable": "не удаётся записать стенограммы в {folder}: {path} недоступна для записи "
                                     "({detail})",
}
