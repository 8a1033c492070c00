"""Request classification over the persona domain tags, by English and Russian keyword lexicons.

Lexicon entries are ordinary words, or phrases with ``_`` between words, stemmed with the same tokenizer as
the request, so "tokens", "token" and "токены" meet their entries. A phrase counts double; a word marked ``~``
(context such as "team" in "an 8-person team") counts :data:`WEAK`. :data:`ALSO` lists words that concern a second
domain as well, at :data:`ALSO_WEIGHT` (moving a platform to Kubernetes or the cloud is a security question too).
:func:`classify` returns the top domain (``"general"`` when nothing matched) and each domain's share of the hits.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from council.personas.contract import DOMAINS
from council.word_match import stem, words

GENERAL = "general"
WEAK = 0.4  # a "~word": context more often than subject
ALSO_WEIGHT = 0.6  # a word's weight in the second domain :data:`ALSO` gives it

# Tie-break order: the more specific domain wins a tie.
PRIORITY = ("security", "legal", "finance", "reliability", "architecture", "data", "people", "customer",
            "product", "growth", "operations", "workflow", "strategy")

LEXICON: dict[str, str] = {
    "security": """
        security secure insecure auth authentication authorization authorisation oauth oidc sso saml jwt
        token secret secrets password passwords credential credentials encrypt encryption encrypted decrypt
        tls ssl certificate vulnerability vulnerabilities cve exploit attack attacker breach breached leak
        leaked phishing malware ransomware xss csrf injection threat pentest firewall rbac privilege
        permissions hack hacked hacker mfa 2fa rotate rotation zero-trust api_key access_control
        threat_model supply_chain_attack login logins log_in signin sign_in session sessions cookie cookies
        hash hashes hashing hashed md5 sha1 sha-1 bcrypt argon2 scrypt salt salted cryptography crypto
        owasp vulnerable unpatched patch patches patching pentester penetration_test sql_injection
        at_rest in_transit brute_force credential_stuffing ddos private_key as_root root_access privileged sudo
        iam stolen laptop access_to_production auth0 keycloak safe unsafe shell shell_commands sandbox sandboxing
        rate_limiting rate_limit scraping scraper scrapers abuse waf cloudflare
        безопасность безопасности уязвимость уязвимости утечка утечки токен токены секрет секреты пароль
        пароли шифрование атака атаки взлом взломали авторизация аутентификация сертификат хакер фишинг
        права_доступа логин хеш хэш хеширование шифровать зашифровать патч""",
    "legal": """
        legal law laws lawyer contract contracts license licence licensing gpl agpl gdpr ccpa hipaa soc2
        compliance compliant regulation regulatory regulator liability trademark patent copyright lawsuit
        court nda dispute jurisdiction terms_of_service privacy_policy personal_data open_source_license dpa
        indemnity closed_source
        юрист юридический закон законы договор договоры лицензия лицензии регулятор регулирование суд патент
        ответственность персональные_данные авторское_право""",
    "finance": """
        finance financial money price prices pricing cost costs budget revenue margin margins profit
        profitability cash runway roi investment invest investor fundraising funding valuation burn expense
        expenses spend spending payback ltv cac forecast tax taxes billing invoice discount discounts
        dollars euros subscription unit_economics cash_flow liability unlimited_liability bill bills
        финансы финансовый деньги цена цены стоимость бюджет выручка доход прибыль маржа инвестиции инвестор
        затраты расходы окупаемость налог налоги скидка скидки подписка""",
    "reliability": """
        reliability reliable uptime downtime outage outages incident incidents on-call oncall pager
        monitoring alert alerts alerting observability logs logging tracing slo slos sli availability
        failover redundancy backup backups rollback rollbacks canary deploy deploys deployment release
        releases production prod crash crashes regression latency resilience infrastructure kubernetes k8s
        docker terraform stability flaky error_budget disaster_recovery feature_flag cluster clusters node nodes
        memory oom cpu server servers hosting cloud aws gcp azure helm autoscaling scaling capacity_planning
        heroku paas ec2 rds container containers multi_region region regions replica replicas replication
        read_replica cdn
        надежность надежности аптайм простой инцидент инциденты авария упал упало падение мониторинг алерт
        алерты логи откат релиз релизы деплой выкатка прод продакшн сломать сломали ломается нагрузка бэкап
        бэкапы инфраструктура дежурство стабильность стабильно""",
    "architecture": """
        architecture architectural architect design microservice microservices monolith
        module modules boundaries coupling api apis interface schema scalability scalable scale event-driven
        queue kafka integration migration migrate framework frameworks stack refactor refactoring graphql
        grpc rest cqrs ddd serverless system_design domain_model technical_debt build_or_buy rewrite backend
        frontend django flask rails laravel spring ~service ~services
        архитектура архитектурный микросервис микросервисы монолит сервис сервисы модуль модули
        масштабирование масштабируемость интеграция проектирование схема миграция фреймворк рефакторинг
        технический_долг""",
    "data": """
        data dataset datasets analytics analysis database databases sql query queries etl warehouse
        dashboard dashboards reporting report reports bi ml ai model models postgres mysql mongodb pii
        machine_learning data_pipeline data_warehouse fivetran dbt airflow snowflake bigquery redshift clickhouse
        events_table event_data
        данные данных аналитика база отчет отчеты отчетность дашборд хранилище запрос запросы
        машинное_обучение""",
    "people": """
        ~people ~team ~teams hire hiring recruit recruiting culture morale burnout motivation motivated ~manager
        ~managers ~management leadership leader employee employees staff colleague colleagues conflict
        ~feedback remote hybrid office layoff layoffs reorg reorganisation reorganization promotion salary
        salaries compensation diversity mentoring mentor training wellbeing hr headcount performance_review
        ~команда ~команды найм нанять нанимать культура мотивация выгорание сотрудник сотрудники руководитель
        менеджер лидерство конфликт увольнение уволить зарплата зарплаты удаленка офис обучение наставник""",
    "customer": """
        ~customer ~customers ~client ~clients satisfaction nps csat churn complaint complaints ticket tickets
        ~feedback onboarding journey accessibility trust refund refunds cancellation loyalty ~review ~reviews
        buyer buyers user_experience customer_support customer_success
        клиент клиенты клиентов покупатель покупатели жалоба жалобы отзыв отзывы удовлетворенность отток
        лояльность доверие возврат""",
    "product": """
        product products feature features roadmap requirement requirements mvp prototype backlog prioritize
        prioritise prioritization prioritisation scope launch ux ui usability experiment experiments metric
        metrics kpi okr okrs users deadline deadlines spec user_story product-market_fit a/b_test mvp
        продукт продукта фича фичи функциональность роадмап требования приоритет приоритеты приоритизация
        пользователь пользователи запуск метрика метрики эксперимент дедлайн дорожная_карта""",
    "growth": """
        growth grow growing market markets marketing acquisition funnel conversion retention expansion
        expand go-to-market gtm campaign seo advertising ads brand positioning competitor competitors
        competition segment smb tier tiers upsell partnership sales leads viral traction
        monetization monetisation new_market market_share
        рост расти маркетинг рынок рынка воронка конверсия привлечение продажи конкурент конкуренты сегмент
        реклама бренд позиционирование партнерство монетизация""",
    "operations": """
        operations operational ops logistics vendor vendors supplier suppliers procurement inventory
        fulfilment fulfillment support helpdesk sla capacity staffing outsourcing outsource efficiency
        execution sop shipping warehouse bottleneck bottlenecks supply_chain
        операции операционный логистика поставщик поставщики закупки склад поддержка эффективность
        аутсорсинг доставка""",
    "workflow": """
        workflow workflows process processes pipeline pipelines ci cd ci/cd ~review ~reviews branch branching
        git merge sprint sprints agile scrum kanban standup velocity productivity tooling automation
        automate handoff speed faster slow accelerate code_review pull_request developer_experience trunk_based
        trunk monorepo
        процесс процессы ревью пайплайн спринт спринты автоматизация ветка ветки мерж инструменты
        продуктивность скорость ускорить быстрее медленно""",
    "strategy": """
        strategy strategic vision mission long-term decision decide direction pivot bet tradeoff trade-off
        tradeoffs trade-offs priorities moat plan planning goals merger competitive_advantage
        стратегия стратегический видение миссия долгосрочный решение решить направление пивот цель цели
        план""",
}


# Words that concern a second domain too: a move of the platform is a security question as well.
ALSO: dict[str, str] = {
    "security": """
        kubernetes k8s cluster clusters container containers docker cloud aws gcp azure heroku infrastructure
        terraform helm hosting ec2 personal_data pii gdpr
        кубернетес облако инфраструктура""",
}


@dataclass(frozen=True)
class _Entry:
    domain: str
    stems: tuple[str, ...]
    weight: float


@dataclass
class Classification:
    """The outcome of :func:`classify_detail`: top domain, per-domain shares and the words that matched."""

    classification: str
    scores: dict[str, float]
    matches: dict[str, list[str]] = field(default_factory=dict)

    @property
    def keywords(self) -> list[str]:
        return self.matches.get(self.classification, [])


def _entries() -> list[_Entry]:
    out: dict[tuple[str, tuple[str, ...]], _Entry] = {}  # "token" and "tokens" are one entry
    for lexicon, factor in ((LEXICON, 1.0), (ALSO, ALSO_WEIGHT)):
        for domain, text in lexicon.items():
            for item in text.split():
                weak = item.startswith("~")
                stems = tuple(stem(w) for w in words(item.lstrip("~").replace("_", " ")))
                if stems and (domain, stems) not in out:
                    weight = (2.0 if len(stems) > 1 else 1.0) * (WEAK if weak else 1.0) * factor
                    out[(domain, stems)] = _Entry(domain, stems, weight)
    return list(out.values())


_ENTRIES = _entries()
_BY_FIRST: dict[str, list[_Entry]] = {}
for _entry in _ENTRIES:
    _BY_FIRST.setdefault(_entry.stems[0], []).append(_entry)
assert set(LEXICON) == set(DOMAINS) == set(PRIORITY)


def classify_detail(text: str) -> Classification:
    """Classify ``text`` and keep the matched surface words per domain."""
    surface = words(text)
    stems = [stem(w) for w in surface]
    weights = dict.fromkeys(DOMAINS, 0.0)
    matches: dict[str, list[str]] = {}
    for i, first in enumerate(stems):
        for entry in _BY_FIRST.get(first, ()):
            n = len(entry.stems)
            if tuple(stems[i:i + n]) == entry.stems:
                weights[entry.domain] += entry.weight
                hit = " ".join(surface[i:i + n])
                if hit not in matches.setdefault(entry.domain, []):
                    matches[entry.domain].append(hit)
    total = sum(weights.values())
    if not total:
        return Classification(GENERAL, dict.fromkeys(DOMAINS, 0.0), {})
    scores = {d: round(w / total, 3) for d, w in weights.items()}
    best = max(PRIORITY, key=lambda d: (weights[d], -PRIORITY.index(d)))
    return Classification(best, scores, matches)


def classify(text: str) -> tuple[str, dict[str, float]]:
    """``(classification, scores)``: the top domain tag (or ``"general"``) and each domain's share of the
        hits."""
    result = classify_detail(text)
    return result.classification, result.scores
