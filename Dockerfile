FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY . .
RUN npx next build

FROM node:22-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production HOSTNAME=0.0.0.0 PORT=3000
COPY --from=build /app ./
EXPOSE 3000
# Applies pending migrations, then starts Next.js.
CMD ["node", "scripts/run-app.mjs", "start"]
