# Build the single executable on a current Node LTS, then ship it on a slim Debian base (glibc, CA
# certificates). The image runs as a non-root user with no file capabilities, so it starts under
# `--cap-drop=ALL` and `--security-opt no-new-privileges`: every port is unprivileged (>= 1024).
FROM node:24-bookworm-slim AS build
WORKDIR /src
# The workspace's manifest too: npm ci installs every workspace the lockfile names.
COPY package.json package-lock.json ./
COPY clients/typescript/package.json clients/typescript/
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates tini \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 inboxd \
 && useradd --system --uid 10001 --gid 10001 --home-dir /data --shell /usr/sbin/nologin inboxd \
 && mkdir -p /data && chown 10001:10001 /data
COPY --from=build /src/dist/inboxd /usr/local/bin/inboxd
# The defaults of `inboxd serve` (docs/configuration.md), bound on every interface. SMTP on 1025 as
# Mailpit and MailDev, so apps and compose files written for them work unchanged.
ENV INBOXD_DATA_DIR=/data \
    INBOXD_HOST=0.0.0.0 \
    INBOXD_HTTP_PORT=8025 \
    INBOXD_SMTP_PORT=1025 \
    INBOXD_IMAP_PORT=9993 \
    INBOXD_POP3_PORT=9995
VOLUME ["/data"]
EXPOSE 8025 1025 9993 9995
# Numeric, so that Kubernetes' runAsNonRoot can check it. A bind mount must be writable by uid 10001
# (`chown 10001 ./data`); otherwise start-up stops with one line naming INBOXD_DATA_DIR.
USER 10001:10001
# `inboxd health` exits 0 once GET /readyz answers 200 (every listener up, the database takes writes).
# Checked every second while starting (Docker Engine >= 25), so `depends_on: condition: service_healthy`
# goes on within a second or two of `ready`; every 10 s after that.
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --start-interval=1s --retries=3 \
  CMD ["/usr/local/bin/inboxd", "health"]
ENTRYPOINT ["/usr/bin/tini", "--", "/usr/local/bin/inboxd"]
CMD ["serve"]
