# lakedump as a container image, for docker or podman (docs/deploy.md):
#   docker build -t lakedump:0.1.0 --build-arg BUILD_ID=$(git rev-parse --short=12 HEAD) .
#   docker run --rm lakedump:0.1.0 --version
# Two stages: the build on debian:12 with the -dev packages (scripts/deps' list, less the test
# tools), then debian:12-slim with only the runtime libraries (deploy/image/runtime-packages),
# run as the non-root user lakedump (uid 10001). scripts/build-image builds the same runtime
# image from Debian packages alone, where no image registry can be reached.

FROM debian:12 AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      build-essential cmake ninja-build g++ pkg-config \
      libcurl4-openssl-dev libssl-dev libzstd-dev libsnappy-dev liblz4-dev zlib1g-dev \
      libpq-dev libsqlite3-dev libcli11-dev nlohmann-json3-dev libfmt-dev libpugixml-dev \
      libxxhash-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY CMakeLists.txt ./
COPY include include
COPY src src
# The build context has no .git: the commit comes in as a build argument.
ARG BUILD_ID=unknown
# As scripts/quickstart builds it: Release, the binary alone (its man page and completion come
# with it), a unity build.
RUN cmake -S . -B /build -G Ninja -DCMAKE_BUILD_TYPE=Release -DLAKEDUMP_BUILD_ID="$BUILD_ID" \
      -DLAKEDUMP_BUILD_TESTS=OFF -DLAKEDUMP_BUILD_BENCH=OFF -DLAKEDUMP_BUILD_TOOLS=OFF \
      -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=16 \
 && cmake --build /build --target lakedump \
 && DESTDIR=/staging cmake --install /build --prefix /usr --strip

FROM debian:12-slim
COPY deploy/image/runtime-packages /tmp/runtime-packages
RUN apt-get update \
 && grep -v '^#' /tmp/runtime-packages \
    | DEBIAN_FRONTEND=noninteractive xargs apt-get install -y --no-install-recommends \
 && rm -rf /var/lib/apt/lists/* /tmp/runtime-packages \
 && groupadd --system --gid 10001 lakedump \
 && useradd --system --uid 10001 --gid 10001 --home-dir /home/lakedump --create-home \
      --shell /usr/sbin/nologin lakedump
COPY --from=build /staging/usr/bin/lakedump /usr/bin/lakedump
USER 10001:10001
WORKDIR /home/lakedump
ENTRYPOINT ["/usr/bin/lakedump"]
CMD ["--help"]
