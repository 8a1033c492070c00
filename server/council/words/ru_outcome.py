"""The Russian catalog, second part: what the answer rests on (what the debate changed, what it hinges on), a
revisited question, the questions not asked, the seating map's misses, consent and the answers reused after a reload
(see ``council.words``; ``ru`` holds the rest)."""

from __future__ import annotations

WORDS: dict[str, str | tuple[str, ...]] = {
    "cost.no_spare": " (без запаса на повторы: неудачный вызов не повторяется)",
    "seats.misses": "_⚠️ Карта мест применена не полностью: {misses}._",
    "seats.no_persona": "«{name}» — нет такой персоны",
    "seats.the_personas": " (персоны: {names})",
    "seats.no_model": "{persona} → «{model}»: модели с таким id нет среди доступных",
    "seats.offered": " (доступны: {names})",
    "seats.speaks_with": ", поэтому {persona} говорит через {label}",
    "calls.failed": "неудачных: {failed}",
    "note.alone": "{persona} отвечает один: совет из одного участника не спорит сам с собой.",
    "status.round_open": "Раунд уточнений {round} из 3 (завершено: {completed})",
    "status.rounds": "Раунды уточнений: {rounds} из 3",
    "turn.revisit_kept": "Вы снова пропустили вопрос: допущение совета и его ответ остаются в силе; ничего не "
                         "перезапускалось.",
    "revisit.nothing": "Пересматривать нечего: совет ничего не допускал за вас — на все вопросы есть ответы.",
    "revisit.row": "{i}. «{question}» — допущено: {assumption}",
    "revisit.nothing_yet": "(пока ничего)",
    "revisit.which": "Какой вопрос совету пересмотреть? Отправьте `/revisit <номер>`:",
    "reused_answer": ("{n} ответ", "{n} ответа", "{n} ответов"),
    "reused_skipped": ("{n} пропущенный вопрос", "{n} пропущенных вопроса", "{n} пропущенных вопросов"),
    "reused.that_question": "этот вопрос",
    "reused.those_questions": "эти вопросы",
    "reused.again_took": "_Совет снова берётся за ваш прежний вопрос и использует ваши ответы до перезагрузки "
                         "({took}): {them} он не задаёт повторно._",
    "reused.again": "_Совет снова берётся за ваш прежний вопрос._",
    "reused.took": "_Совет использует ваши ответы до перезагрузки ({took}): {them} он не задаёт повторно._",
    "reused.answer": "✓ Используется ваш прежний ответ на {question}: **{answer}**",
    "reused.skip": "✓ Вопрос {question} вы пропустили до перезагрузки.",
    "replaced.unknown_session": "> ℹ️ Прежней сессии совета больше нет (VS Code перезагружен или sidecar "
                                "перезапущен без неё), поэтому начинается новая сессия. Чтобы сессии переживали "
                                "перезагрузку, включите `council.sessions.keepAcrossReloads`.",
    "replaced.expired": "> ℹ️ Срок прежней сессии совета истёк, поэтому начинается новая сессия.",
    "reused.no_match": "_Ваши ответы до перезагрузки не подходят к новым вопросам модератора, поэтому он их задаёт._",
    "consent.chat_model": "модель чата",
    "consent.allow_it": "разрешите её в **Manage Language Model Access** (меню учётных записей) и скажите `continue` "
                        "или выберите в списке моделей чата модель, которую Council может использовать, и спросите "
                        "снова",
    "consent.allow_them": "разрешите их в **Manage Language Model Access** (меню учётных записей) и скажите "
                          "`continue` или выберите в списке моделей чата модель, которую Council может использовать, "
                          "и спросите снова",
    "consent.none": "У Council нет разрешения использовать {names}, поэтому ни один советник не смог ответить: "
                    "{allow}.",
    "clarify.why.for": " по словам: {words}",
    "clarify.why.chosen_for": "Выбраны по словам: {words}.",
    "clarify.asks_again": "**Модератор спрашивает снова** _(вы пропустили вопрос; ваш ответ заменит допущение)_",
    "quoted": "«{text}»",
    "other": ("{n} другой", "{n} других", "{n} других"),
    "question": ("{n} вопрос", "{n} вопроса", "{n} вопросов"),
    "dropped.clear": "_Без уточняющих вопросов: модератор не нашёл вопроса, ответ на который изменил бы рекомендацию, "
                     "поэтому совет сразу переходит к дебатам._",
    "dropped.more": " и ещё {others}",
    "dropped.favours": "любой вероятный ответ говорит в пользу {course}",
    "dropped.same": "любой вероятный ответ на каждый из них ведёт к той же рекомендации",
    "dropped.not_asked": "_Не заданы: {named}{more} — {why}._",
    "dropped.weighed": "_Без уточняющих вопросов: модератор взвесил {questions} ({named}{more}), и {why}, поэтому "
                       "совет сразу переходит к дебатам._",
    "debate.line_first": "**Цикл 1** · независимые позиции",
    "debate.line_next": "**Цикл {cycle}{cap}** · дебаты",
    "debate.options_line": "**Варианты:**",
    "answer.one_advisor": "ответа одного советника (совет из одного не спорит)",
    "change": ("{n} смена", "{n} смены", "{n} смен"),
    "outcome.no_votes": "нет голосов",
    "outcome.no_debate": "После первого голосования ({first}) дебатов не было, так что первое голосование и есть "
                         "итоговое.",
    "outcome.tie_kept": "Дебаты не разбили ничью первого голосования ({first} → {final}).",
    "outcome.confirmed": "Дебаты подтвердили первое голосование: {winner} победил в обоих ({first} → {final}).",
    "outcome.tie_broken": "Дебаты разбили ничью первого голосования: победил {winner} ({first} → {final}).",
    "outcome.overturned_tie": "Дебаты перевернули первое голосование: в нём лидировал {led}, итоговое — ничья "
                              "({first} → {final}).",
    "outcome.overturned": "Дебаты перевернули первое голосование: в нём лидировал {led}, в итоговом победил {winner} "
                          "({first} → {final}).",
    "outcome.from_to": "с {before} на {after}",
    "outcome.to": "на {after}",
    "outcome.no_argument": " не назвав довода",
    "outcome.moved": "{persona} перешёл {where}{why}",
    "outcome.debate_heading": "Что изменили дебаты",
    "outcome.nobody_moved": "Никто не изменил свой голос.",
    "outcome.conformity": "_Смен позиции, помеченных как возможный конформизм (без нового довода): {changes}._",
    "outcome.hinge": "**{assumption}** Если нет, совет рекомендовал бы: {if_false}",
    "outcome.hinges_heading": "На чём держится ответ",
    "outcome.revisit_hint": "_Каждое из этих допущений основано на пропущенном вами вопросе: вернитесь к нему, "
                            "ответьте, и совет пересмотрит решение._",
    "outcome.revisit_label": "Пересмотреть: {text}",
    "revisit.had_assumed": " (совет допускал: {assumption})",
    "revisit.revisited": "**Пересмотрено:** «{question}» — вы ответили **{answer}**{assumed}.",
    "revisit.moved": "**Что изменилось:** рекомендация сменилась с **{before}** на **{after}**.",
    "revisit.stands": "**Что изменилось:** рекомендация осталась прежней — **{after}**.",
    "revisit.votes_changed": " Изменили голос ({advisors}): {names}.",
    "revisit.no_vote_changed": " Ни один советник не изменил голос.",
    "revisit.same": "**Что изменилось:** ничего — рекомендация та же.",
    "revisit.before": "**Что изменилось:** раньше рекомендация была такой: «{recommendation}».",
    "cli.favours": " — _в пользу: {course}_",
    "label.skip_all_button": "Пропустить все",
    "label.skip_all_tooltip": "Пропустить оставшиеся вопросы и перейти к дебатам",
    "label.transcript_button": "Полные позиции",
    "label.transcript_tooltip": "Открыть стенограмму сессии: полная позиция каждого советника, цикл за циклом",
    "persona.line_confidence": "уверенность: {level}",
}
