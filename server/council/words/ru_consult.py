"""The Russian catalog, the consult tools: the notes a consult adds to its synthesis, its progress lines, the
clarifying questions it asks through the client, why it has no answer, its plan and the compact text of its result
(``council.present.consult``; see ``council.words``)."""

from __future__ import annotations

WORDS: dict[str, str | tuple[str, ...]] = {
    "consult.item": ("{n} пункт", "{n} пункта", "{n} пунктов"),
    "consult.item_upto": ("{n} пункта", "{n} пунктов", "{n} пунктов"),
    "consult.next_step": ("{n} следующий шаг", "{n} следующих шага", "{n} следующих шагов"),
    "consult.persona": ("{n} персона", "{n} персоны", "{n} персон"),
    "consult.option": ("{n} вариант", "{n} варианта", "{n} вариантов"),
    "consult.shortfall": "{persona}: в {field} {items}; глубина {depth} требует {lo}–{hi}. Ничего не добавлено, "
                         "чтобы добрать число.",
    "consult.trimmed": "{persona}: {fields} сокращено до {items} (глубина {depth}).",
    "consult.steps_completed": "{steps}: взято из собственных следующих шагов советников (председатель дал слишком "
                               "мало).",
    "consult.silent_one": "{names} не дал(а) пригодного ответа и не указан(а).",
    "consult.silent_many": "{names} не дали пригодного ответа и не указаны.",
    # --- progress ---------------------------------------------------------------------------------------------------
    "consult.stage.council": "Совет: {names}.",
    "consult.stage.clarifying": "Уточнение: {question}",
    "consult.stage.options": "Модератор поставил на голосование: {options}.",
    "consult.stage.cycle": "Цикл {cycle} завершён.",
    "consult.stage.tallied": "Голоса подсчитаны.",
    "consult.stage.answer_so_far": "Ответ совета на сейчас: {text}",
    "consult.stage.answer": "Председатель написал итог.",
    "consult.stage.answered": "{persona} ответил(а) (цикл {cycle}).",
    "consult.stage.failed": "{persona} не смог(ла) ответить (цикл {cycle}): {cause}.",
    # --- no answer ----------------------------------------------------------------------------------------------------
    "consult.the_model": "модель",
    "consult.not_json": "не тот JSON-объект, который просили",
    "consult.unusable": "совет не смог ответить: ответ каждого советника от {who} оказался непригодным, в том числе "
                        "после одной попытки исправления ({said}). Совет просит у каждой модели один JSON-объект с "
                        "полями ответа; {who} его не дала — спросите с моделью, которая следует таким инструкциям",
    "consult.unreachable": "совет не смог ответить: ни одна модель недоступна (не удалось связаться с {hosts}); {fix}",
    "consult.all_failed": "совет не смог ответить: модель каждого советника дала сбой{why}; проверьте настройку "
                          "моделей (см. `council doctor`)",
    # --- clarifying questions through the client (MCP elicitation) ----------------------------------------------------
    "consult.asks": "Совет спрашивает: {question}\n\nВыберите вариант или ответьте своими словами. Если откажетесь, "
                    "совет допустит: {assumption}",
    "consult.choice": "Вариант",
    "consult.your_answer": "Ваш ответ",
    "consult.answer_hint": "Свободный текст (оставьте пустым, чтобы использовать вариант)",
    # --- the compact text of a result, and the plan -------------------------------------------------------------------
    "consult.recommendation": "**Рекомендация:** {text}",
    "consult.vote": "Голосование: {label} ({consensus}).",
    "consult.next_steps": "Следующие шаги:",
    "consult.risks": "Риски:",
    "consult.open_questions": "Открытые вопросы:",
    "consult.assumed": "Допущено:",
    "consult.hinges": "Зависит от:",
    "consult.footer": "_{personas}, {cycles}, {calls}, глубина {depth}; сессия {session}._",
    "consult.plan": "{names} (глубина {depth}, {how}): вызовы модели: {calls}{retries}. {reason}",
    "consult.plan_cycles": "до {cycles}",
    "consult.plan_alone": "без дебатов",
    "consult.positions": "Позиции:",
    "consult.the_chat_model": "модель чата",
    "consult.not_allowed_one": (
        "совет не смог ответить: у Council нет разрешения использовать {names}, поэтому "
        "ни один советник не смог ответить; разрешите её в Manage Language Model Access "
        "(меню Accounts) или выберите в списке моделей чата модель, доступную Council, и "
        "вызовите инструмент снова"
    ),
    "consult.not_allowed_many": (
        "совет не смог ответить: у Council нет разрешения использовать {names}, поэтому "
        "ни один советник не смог ответить; разрешите их в Manage Language Model Access "
        "(меню Accounts) или выберите в списке моделей чата модель, доступную Council, и "
        "вызовите инструмент снова"
    ),
    "consult.plan_retries": " (не больше {bound} с повторами)",
}
