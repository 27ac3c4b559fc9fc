/* sy_srv_tcp_peer_uid (server_tcp_owner.c): the owner of the other end of
 * a loopback TCP connection is the peer's uid, not ours: checked with a
 * peer of another uid when we may switch (root), with our own otherwise;
 * a connection that is not IPv4 TCP is not supported. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <pmix_common.h>

#include "server/server_tcp_owner.h"

/* A listener on 127.0.0.1, its port in *port. */
static int listener(in_port_t *port)
{
    int l = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof(a);
    assert_true(l >= 0);
    assert_int_equal(bind(l, (struct sockaddr *)&a, sizeof(a)), 0);
    assert_int_equal(listen(l, 4), 0);
    assert_int_equal(getsockname(l, (struct sockaddr *)&a, &len), 0);
    *port = a.sin_port;
    return l;
}

static int dial(in_port_t port)
{
    int c = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {
        .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK), .sin_port = port};
    if (c < 0 || connect(c, (struct sockaddr *)&a, sizeof(a)) != 0)
        return -1;
    return c;
}

static void test_own_peer(void **state)
{
    (void)state;
    in_port_t port;
    int l = listener(&port);
    int c = dial(port);
    assert_true(c >= 0);
    int s = accept(l, NULL, NULL);
    assert_true(s >= 0);
    uid_t uid = (uid_t)-1;
    assert_int_equal(sy_srv_tcp_peer_uid(s, &uid), PMIX_SUCCESS);
    assert_int_equal(uid, geteuid());
    uid = (uid_t)-1;
    assert_int_equal(sy_srv_tcp_peer_uid(c, &uid), PMIX_SUCCESS);
    assert_int_equal(uid, geteuid());
    close(s);
    close(c);
    close(l);
}

/* The peer is a child that became another user before it connected: the
 * answer is its uid, whatever ours is. */
static void test_other_user(void **state)
{
    (void)state;
    if (geteuid() != 0)
        skip();
    const uid_t nobody = 65534;
    in_port_t port;
    int l = listener(&port);
    int go[2];
    assert_int_equal(pipe(go), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        char b;
        int c = setuid(nobody) == 0 ? dial(port) : -1;
        /* holds the connection open until the parent has asked */
        _exit(c >= 0 && read(go[0], &b, 1) == 1 ? 0 : 1);
    }
    int s = accept(l, NULL, NULL);
    assert_true(s >= 0);
    uid_t uid = (uid_t)-1;
    pmix_status_t rc = sy_srv_tcp_peer_uid(s, &uid);
    assert_int_equal(write(go[1], "x", 1), 1);
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    assert_int_equal(rc, PMIX_SUCCESS);
    assert_int_equal(uid, nobody);
    close(s);
    close(l);
    close(go[0]);
    close(go[1]);
}

static void test_not_tcp(void **state)
{
    (void)state;
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    uid_t uid;
    assert_int_equal(sy_srv_tcp_peer_uid(sv[0], &uid), PMIX_ERR_NOT_SUPPORTED);
    close(sv[0]);
    close(sv[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_own_peer),
        cmocka_unit_test(test_other_user),
        cmocka_unit_test(test_not_tcp),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
