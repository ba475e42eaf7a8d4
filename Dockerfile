# policycheck in a slim image: `docker run --rm -v "$PWD:/work" policycheck check POLICY -r release.yaml`
# The working folder /work is where policies, manifests and data are mounted; reports land there too.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /opt/policycheck
COPY pyproject.toml README.md ./
COPY policycheck ./policycheck
COPY schemas ./schemas
RUN pip install . \
    && useradd --create-home --uid 10001 policycheck

# Reports are written as the mounting user would write them: no root-owned files.
USER policycheck
WORKDIR /work
ENTRYPOINT ["policycheck"]
CMD ["--help"]
