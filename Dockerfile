# Build the single executable, then ship it on a slim Debian base (glibc, CA certificates).
FROM node:20-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates tini libcap2-bin \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --home-dir /data inboxd \
 && mkdir -p /data && chown inboxd /data
COPY --from=build /src/dist/inboxd /usr/local/bin/inboxd
# 993 and 995 are privileged ports: let the non-root user bind them.
RUN setcap cap_net_bind_service=+ep /usr/local/bin/inboxd
ENV INBOXD_DATA_DIR=/data \
    INBOXD_HOST=0.0.0.0 \
    INBOXD_HTTP_PORT=8025 \
    INBOXD_SMTP_PORT=2525 \
    INBOXD_IMAP_PORT=993 \
    INBOXD_POP3_PORT=995
VOLUME ["/data"]
EXPOSE 8025 2525 993 995
USER inboxd
HEALTHCHECK --interval=30s --timeout=3s CMD ["/usr/local/bin/inboxd", "health"]
ENTRYPOINT ["/usr/bin/tini", "--", "/usr/local/bin/inboxd"]
CMD ["serve"]
