# syntax=docker/dockerfile:1
# Threadline's production image: built in one stage, run from another that
# holds only the self-contained server `npm run build` assembles in
# .next/standalone (server.js, the node_modules it needs, static assets,
# migrations and the start script). No dev dependencies, no sources, no tests.
# tests/fresh-clone/docker-image.test.ts replays these steps without Docker.
# Node 24, the current LTS: the same turns cost it far less CPU than Node 20
# (npm run bench on both); the app itself supports Node >= 20.9.

FROM node:24-bookworm-slim AS build
WORKDIR /app
ENV NEXT_TELEMETRY_DISABLED=1
COPY package.json package-lock.json ./
# The workspaces' manifests too: npm ci checks the lock against every workspace.
COPY packages/agentkit-history/package.json packages/agentkit-history/
COPY packages/history/package.json packages/history/
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

FROM node:24-bookworm-slim AS runtime
WORKDIR /app
ENV NODE_ENV=production NEXT_TELEMETRY_DISABLED=1 HOSTNAME=0.0.0.0 PORT=3000
COPY --from=build --chown=node:node /app/.next/standalone ./
USER node
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 CMD ["node", "scripts/healthcheck.mjs"]
# Applies pending migrations to DATABASE_URL, then starts the server.
CMD ["node", "scripts/run-app.mjs", "start"]
