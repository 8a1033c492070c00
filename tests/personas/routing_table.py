"""The routing table (issue 21): real questions across domains, with the personas each must and must not seat.

Used by the routing tests (word-based fallback) and by ``bench/routing_table.py`` (the same table with and without
embeddings). Names are the shipped chat personas; the Devil's Advocate always sits and is left out here.
"""

from __future__ import annotations

RE, SE, SA, SD, PM = "Reliability Engineer", "Security Expert", "Software Architect", "Senior Developer", \
    "Product Manager"
CL, CA, FO, GS, OA = "Culture Lead", "Customer Advocate", "Financial Officer", "Growth Strategist", "Ops Architect"

# (domain, question, must sit, must not sit)
TABLE: list[tuple[str, str, tuple[str, ...], tuple[str, ...]]] = [
    # infrastructure: the reliability engineer leads, a move of the platform also seats security
    ("infra", "We're an 8-person team with three Django services on Heroku. Should we migrate to Kubernetes?",
     (RE, SE), (CL,)),
    ("infra", "Should we move our three Django services from Heroku to Kubernetes without downtime?", (RE, SE),
     (CL, GS)),
    ("infra", "Should we migrate our deployment to Kubernetes this quarter?", (RE, SE), (CL,)),
    ("infra", "Our Kubernetes cluster keeps running out of memory at night; should we move to managed nodes?",
     (RE,), (CL,)),
    ("infra", "Should we adopt Terraform for all our infrastructure?", (RE,), (CL,)),
    ("infra", "Should we move from our own servers to AWS?", (RE, SE), (GS, CL)),
    ("infra", "Is it time to set up an on-call rotation and paging for our API?", (RE,), (FO,)),
    ("infra", "Our database backups have never been tested; how worried should we be?", (RE,), (CL,)),
    ("infra", "We had three outages last month; how do we reduce incidents?", (RE,), (PM,)),
    ("infra", "Should we run Postgres ourselves on EC2 or pay for RDS?", (RE,), (CL,)),
    ("infra", "How should we set up monitoring and alerting for our microservices?", (RE,), (CL,)),
    ("infra", "Do we need multi-region failover for our European customers?", (RE,), (CL,)),
    # security
    ("security", "Is our login page safe?", (SE,), (PM,)),
    # the audit's misses (session 6): a security question in other words than the lexicon's first ones
    ("security", "Is it safe to let our LLM agent run shell commands in CI?", (SE,), (CL,)),
    ("security", "Should we put our API behind Cloudflare and add rate limiting against scraping?", (SE,), (CL,)),
    ("security", "Should we store user passwords with MD5?", (SE,), (CA,)),
    ("security", "How do we protect our forms against XSS and CSRF?", (SE,), (CL,)),
    ("security", "A pentest found SQL injection in the search endpoint; what now?", (SE,), (CL,)),
    ("security", "Where should we keep our secrets and API keys in CI?", (SE,), (CL,)),
    ("security", "Should we add SSO and MFA to our internal admin panel?", (SE,), (GS,)),
    ("security", "An employee's laptop with production credentials was stolen; what do we do now?", (SE,), (CL,)),
    ("security", "Should our containers run as root in the cluster?", (SE,), (CL,)),
    ("security", "How do we give contractors access to production without sharing the admin password?", (SE,),
     (CL,)),
    # data
    ("data", "Should we choose Postgres or MongoDB for our analytics?", (SA,), (CL,)),
    ("data", "Our ETL pipeline into the warehouse breaks every night; rebuild it or buy Fivetran?", (SA,), (CL,)),
    ("data", "How should we model events in our data warehouse for the dashboards?", (SA,), (CL,)),
    ("data", "Can we train our ML model on support tickets that contain personal data?", (SE,), (GS,)),
    ("data", "Reporting queries slow down the production database; should we add a read replica?", (SA, RE), (CL,)),
    # finance
    ("finance", "Should we raise prices for the enterprise tier next year?", (FO, GS), (SE,)),
    ("finance", "Is it worth spending 200k on a new CRM?", (FO,), (SE,)),
    ("finance", "We have 9 months of runway; cut costs or raise a bridge round?", (FO,), (SE, RE)),
    ("finance", "Should we offer annual plans with a 20% discount?", (FO,), (SE,)),
    # product
    ("product", "Which features should go into the MVP for our mobile app?", (PM,), (SE,)),
    ("product", "Should we delay the launch to add dark mode?", (PM,), (SE,)),
    ("product", "How do we prioritise the roadmap between enterprise requests and new users?", (PM,), (SE,)),
    ("product", "Should we run an A/B test before redesigning onboarding?", (PM,), (SE,)),
    # people
    ("people", "How do I keep my team motivated after layoffs?", (CL,), (SE,)),
    ("people", "Two senior engineers are in constant conflict; how should I handle it?", (CL,), (SE,)),
    ("people", "Should we go fully remote or keep the office?", (CL,), (SE,)),
    ("people", "How should we structure salaries and promotions for a 20-person team?", (CL,), (SE,)),
    # architecture
    ("architecture", "Should we split our monolith into microservices?", (SA,), (CL,)),
    ("architecture", "GraphQL or REST for our public API?", (SA,), (CL,)),
    ("architecture", "Should we add a message queue between the order service and billing?", (SA,), (PM,)),
    ("architecture", "Should we rewrite our Django backend in Go?", (SA, SD), (CL,)),
    ("architecture", "Build our own authentication service or buy Auth0?", (SE, SA), (CL,)),
    # legal
    ("legal", "Do we need a GDPR review before storing EU customer emails?", (SE,), (CL,)),
    ("legal", "Can we use an AGPL library in our closed-source SaaS?", (SE,), (CL, GS)),
    ("legal", "A customer wants us to sign a DPA with unlimited liability; should we?", (FO,), (CL,)),
    # customers, growth, operations, workflow
    ("customer", "Churn jumped after the price change; how do we win customers back?", (CA,), (SE,)),
    ("growth", "Should we expand into the German market next year?", (GS,), (SE,)),
    ("operations", "Should we outsource customer support to an agency?", (OA,), (SE,)),
    ("operations", "Our shipping times doubled; should we switch logistics vendor?", (OA,), (SE,)),
    ("workflow", "Our code reviews take three days; how do we speed up merging?", (SD,), (FO,)),
    ("workflow", "Should we adopt trunk-based development with feature flags?", (SD,), (FO, CL)),
    # Russian
    ("infra", "Стоит ли нам переезжать с Heroku на Kubernetes?", (RE,), (CL,)),
    ("security", "Как защитить пароли пользователей от утечки?", (SE,), (CL,)),
]
