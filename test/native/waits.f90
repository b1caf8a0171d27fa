! Waits from Fortran, as the program sees them (test/waits.test.ts runs it plain and sampled at
! 10 kHz and compares the lines): gfortran's SLEEP intrinsic (libc's sleep) and nanosleep through
! C interoperability.
!   waits_f full      each wait runs its time out
!   waits_f program   the program's own SIGALRM (the ALARM intrinsic, one second) ends each early
program waits_f
  use, intrinsic :: iso_c_binding
  implicit none
  type, bind(c) :: timespec
    integer(c_long) :: tv_sec, tv_nsec
  end type
  interface
    integer(c_int) function c_nanosleep(req, rem) bind(c, name='nanosleep')
      import :: c_int, timespec
      type(timespec), intent(in) :: req
      type(timespec), intent(out) :: rem
    end function
  end interface
  character(len=16) :: mode
  type(timespec) :: req, rem
  integer(c_int) :: r
  integer(8) :: t0, t1, rate
  real(8) :: took

  call get_command_argument(1, mode)
  if (mode == 'full') then
    call system_clock(t0, rate)
    call sleep(1)
    call system_clock(t1)
    took = real(t1 - t0, 8) / real(rate, 8)
    print '(a,a)', 'sleep waited=', trim(merge('full ', 'short', took >= 1d0))
    req = timespec(0_c_long, 300000000_c_long)
    call system_clock(t0, rate)
    r = c_nanosleep(req, rem)
    call system_clock(t1)
    took = real(t1 - t0, 8) / real(rate, 8)
    print '(a,i0,a,a)', 'nanosleep ret=', r, ' waited=', trim(merge('full ', 'short', took >= 0.3d0))
  else
    call alarm(1, on_alarm)
    call system_clock(t0, rate)
    call sleep(3)
    call system_clock(t1)
    took = real(t1 - t0, 8) / real(rate, 8)
    print '(a,a)', 'sleep waited=', trim(merge('full ', 'short', took >= 3d0))
    call alarm(1, on_alarm)
    req = timespec(3_c_long, 0_c_long)
    call system_clock(t0, rate)
    r = c_nanosleep(req, rem)
    call system_clock(t1)
    took = real(t1 - t0, 8) / real(rate, 8)
    print '(a,i0,a,a,a,l1)', 'nanosleep ret=', r, ' waited=', trim(merge('full ', 'short', took >= 3d0)), &
      ' rem>1s=', rem%tv_sec >= 1
  end if
contains
  subroutine on_alarm()
  end subroutine
end program
