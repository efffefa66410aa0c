# The environment: scrubbed to an allowlist unless asked otherwise.

test_secret_variable_is_scrubbed() {
	AWS_SECRET_ACCESS_KEY=s3cr3t GITHUB_TOKEN=t0k LANG=C.UTF-8 \
		cordon -- env
	assert_status 0
	assert_stdout_lacks s3cr3t
	assert_stdout_lacks t0k
	assert_stdout_has '^LANG=C.UTF-8$'
	assert_stdout_has '^PATH='
	AWS_SECRET_ACCESS_KEY=s3cr3t plain env
	assert_stdout_has s3cr3t
}

test_allowed_variable_reaches_the_command() {
	MY_SETTING=on OTHER=no cordon --env MY_SETTING -- env
	assert_stdout_has '^MY_SETTING=on$'
	assert_stdout_lacks '^OTHER='
	CARGO_HOME=/c CARGO_X=1 cordon -e 'CARGO_*' -- env
	assert_stdout_has '^CARGO_HOME=/c$'
	assert_stdout_has '^CARGO_X=1$'
}

test_set_variable() {
	LANG=C cordon -e NEW=value -e LANG=C.UTF-8 -- env
	assert_stdout_has '^NEW=value$'
	assert_stdout_has '^LANG=C.UTF-8$'
	assert_stdout_lacks '^LANG=C$'
}

test_inherit_env() {
	AWS_SECRET_ACCESS_KEY=s3cr3t cordon --inherit-env -- env
	assert_stdout_has '^AWS_SECRET_ACCESS_KEY=s3cr3t$'
}

test_bad_env_name() {
	cordon -e '1BAD' -- true
	assert_status 125
	assert_stderr_has "cordon: --env '1BAD': not a variable name"
}
